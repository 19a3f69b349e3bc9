import Benchmark

// Every scenario runs our code and each peer in the same run. Benchmarks are named
// "scenario: implementation"; `Benchmarks/report` groups them by scenario and computes the ratios.
// One iteration (one sample) does 1,000 operations: with `--scale` the tables show the cost of
// 1,000 operations, which the report divides back into the cost of one.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: 5_000
  )
  chainBenchmarks()
  subscriptionBenchmarks()
  fanOutBenchmarks()
  contendedSendBenchmarks()
  asyncBridgeBenchmarks()
  memoryBenchmarks()
  operatorBenchmarks()
}

/// The name of a benchmark of `implementation` in `scenario`.
func name(_ scenario: String, _ implementation: String) -> String {
  "\(scenario): \(implementation)"
}
