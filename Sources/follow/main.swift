#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// follow: prints the lines appended to files as they arrive, across log rotation; see
// Options.usage. This top-level code, on the main actor, parses the command line and hands over
// to the program's main-actor types, whose streams all deliver on the main actor.
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
