import Benchmark

/// The work every chain does to each value, whatever the library: map, then filter, then hand
/// the value to the subscriber. Every value passes the filter, so every value is delivered.
@inline(__always) func transform(_ value: Int) -> Int { value &+ 1 }
@inline(__always) func isIncluded(_ value: Int) -> Bool { value > 0 }
@inline(__always) func deliver(_ value: Int) { blackHole(value) }
