import Observation

/// How a current value takes part in Observation: the registrar of its one observable
/// property, `value`. ``MulticastStorage`` makes one for a ``CurrentValue`` or a
/// ``SendableCurrentValue`` at the first read of its value, before which no one can be tracking
/// it, and keeps it; an emitter, or a current value whose value is never read, has none, and its
/// writes pay nothing for Observation.
///
/// A read of `value` calls ``access()``, which adds the read to the access list of the
/// `withObservationTracking` (or SwiftUI view body) running on this thread, if any, and does
/// nothing else. Each write that the storage stores is bracketed by ``willSet()``, before the
/// value is stored, and ``didSet()``, after, as the `@Observable` macro brackets a write with
/// `withMutation`; a write skipped as equal calls neither. Both run outside the storage's lock,
/// on the writing thread, and call the observers registered for the value there
/// (`withObservationTracking`'s `onChange` in `willSet`), which are `@Sendable`.
///
/// A class, not a struct: Observation's `ObservationRegistrar` is a type of a module built for
/// library evolution, whose layout this module does not know, so an optional struct holding one
/// was copied through the runtime's generic metadata at each read and write (the largest part of
/// their instructions, counted with callgrind); an optional reference is a pointer.
///
/// Not a key path into `CurrentValue<T>`: a key path into a generic type is made anew each time
/// code that is not specialized evaluates it (two allocations a read or a write, on Linux with
/// Swift 6.3.1), and a storage's code is not specialized for its users' types. A registrar serves
/// one value, so all its key has to be is the same at every call: the key path of
/// ``ValueKey/value``, which the compiler makes once.
@usableFromInline final class ValueRegistrar: Sendable {
  private let registrar = ObservationRegistrar()
  /// The key, read once: each evaluation of the literal is a call into the runtime, which
  /// returns the one object it made (about a tenth of a write's instructions, counted with
  /// callgrind).
  private let key: KeyPath<ValueKey, Void> & Sendable = \ValueKey.value

  @usableFromInline init() {}

  /// Records a read of the value for the observation tracking of this thread, if any.
  @usableFromInline func access() {
    registrar.access(ValueKey(), keyPath: key)
  }

  /// Tells the value's observers that it is about to change.
  @usableFromInline func willSet() {
    registrar.willSet(ValueKey(), keyPath: key)
  }

  /// Tells the value's observers that it has changed.
  @usableFromInline func didSet() {
    registrar.didSet(ValueKey(), keyPath: key)
  }
}

/// The subject that ``ValueRegistrar``'s key path starts from: a stand-in, never stored.
private struct ValueKey: Observable {
  var value: Void { () }
}
