import Benchmark
import Foundation

// Every scenario runs our code and each peer in the same run. Benchmarks are named
// "scenario: implementation"; `Benchmarks/report` groups them by scenario and computes the ratios.
// One iteration (one sample) does 1,000 operations: with `--scale` the tables show the cost of
// 1,000 operations, which the report divides back into the cost of one.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: checkingAllocations ? [.mallocCountTotal] : [.wallClock, .mallocCountTotal],
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: checkingAllocations ? allocationCheckSamples : 5_000,
    thresholds: exactAllocations([.mallocCountTotal])
  )
  chainBenchmarks()
  subscriptionBenchmarks()
  fanOutBenchmarks()
  contendedSendBenchmarks()
  asyncBridgeBenchmarks()
  memoryBenchmarks()
  ownerBoundSubscribeBenchmarks()
  operatorBenchmarks()
  linesBenchmarks()
  timerTickBenchmarks()
  pipeByteBenchmarks()
  currentValueBenchmarks()
}

/// The name of a benchmark of `implementation` in `scenario`.
func name(_ scenario: String, _ implementation: String) -> String {
  "\(scenario): \(implementation)"
}

/// Whether this run is `Benchmarks/allocations` (the allocation check of CI), which sets
/// `BENCHMARK_ALLOCATIONS_ONLY`: it measures allocations only, which are the same in every sample,
/// so a few samples are enough.
let checkingAllocations = ProcessInfo.processInfo.environment["BENCHMARK_ALLOCATIONS_ONLY"] != nil

/// How many samples each benchmark takes in the allocation check.
let allocationCheckSamples = 10

/// Allocation counts are deterministic: `thresholds check` fails when a benchmark's p90 count (or
/// its bytes, where `metrics` has them) differs at all from the one recorded in
/// `Benchmarks/Thresholds`, more or fewer. Times have no thresholds: they are reported, never
/// checked.
func exactAllocations(_ metrics: [BenchmarkMetric]) -> [BenchmarkMetric: BenchmarkThresholds] {
  Dictionary(
    uniqueKeysWithValues: metrics.filter { $0 != .wallClock }.map {
      ($0, .init(absolute: [.p90: 0]))
    })
}
