#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// follow: prints the lines appended to files as they arrive, across log rotation; see
// Options.usage. The program's logic lives in nonisolated types: this top-level code only
// parses the command line and hands over.
do {
  let options = try Options(parsing: Array(CommandLine.arguments.dropFirst()))
  if options.help {
    print(Options.usage)
    exit(0)
  }
  if options.version {
    print(Options.versionText)
    exit(0)
  }
  Program.run(options)
} catch {
  printError(Options.usageMistake(error))
  exit(2)
}
