#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The example program is written with the Producers module; until then it only parses its
// command line and says so.
do {
  let options = try Options(parsing: Array(CommandLine.arguments.dropFirst()))
  if options.help {
    print(Options.usage)
    exit(0)
  }
  print("follow: not written yet; it arrives with the Producers module's file streams")
  exit(1)
} catch {
  printError("follow: \(error)\n\n\(Options.usage)")
  exit(2)
}
