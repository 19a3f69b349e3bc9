/// Undoes what a connect closure did: unregisters the observer from its source.
///
/// A ``Subscription`` calls it at most once.
public typealias Disconnect = () -> Void

/// A disconnect that does nothing, for connect closures that register nothing.
///
/// It is a function, so `return noopDisconnect` works wherever a ``Disconnect`` is expected:
///
/// ```swift
/// let five = ValueObservable<Int> { observer in
///   observer.next(5)
///   return noopDisconnect
/// }
/// ```
@inlinable
public func noopDisconnect() {}
