/// A stream of one object's values, such as a key path of it, that names that object, so that a
/// ``SubscriptionBag`` can end everything the object feeds.
///
/// A bag files a subscription that ``SubscriptionBag/subscribe(to:about:_:)-(ValueObservable<T>,_,_)`` makes to such a
/// stream under ``streamedObject``, as if it had been given with `about:`; then
/// ``SubscriptionBag/unsubscribe(from:)`` with the object ends it, with every other
/// subscription about that object, without the stream having been kept. The streams of
/// `Observed.values(_:of:on:)` (module `Producers`) name their root object this way.
///
/// ```swift
/// final class Thermometer {
///   let readings = Emitter<Double>()
/// }
///
/// final class Readings: ValueObservable<Double>, StreamOfObject {
///   let thermometer: Thermometer
///   var streamedObject: AnyObject? { thermometer }
///
///   init(of thermometer: Thermometer) {
///     self.thermometer = thermometer
///     super.init { observer in thermometer.readings.subscribe(observer.next).unsubscribe }
///   }
/// }
///
/// let thermometer = Thermometer()
/// let bag = SubscriptionBag()
/// bag.subscribe(to: Readings(of: thermometer)) { print($0) }
/// bag.unsubscribe(from: thermometer)  // ends it
/// ```
///
/// An operator makes another stream, which names no object: `stream.map { ... }` is filed
/// under nothing unless the subscription says `about:`.
public protocol StreamOfObject: AnyObject {
  /// The object whose values the stream delivers; nil once it is gone.
  ///
  /// The bag reads it once, when it subscribes to the stream, on the subscribing thread, and
  /// keeps the object weakly.
  var streamedObject: AnyObject? { get }
}
