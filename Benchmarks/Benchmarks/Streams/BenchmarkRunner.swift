import Benchmark

/// The benchmarks' entry point: what package-benchmark's `BenchmarkPlugin` would generate
/// (1.38.1's BenchmarkBoilerplateGenerator), written here so that no build runs the plugin's
/// generator (Package.swift says why). `BenchmarkRunnerHooks` gives it its `main`, which runs
/// the benchmarks that `benchmarks` registers as `BenchmarkTool` asks.
@main
struct BenchmarkRunner: BenchmarkRunnerHooks {
  static func registerBenchmarks() {
    _ = benchmarks()
  }
}
