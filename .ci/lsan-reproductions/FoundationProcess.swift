// LeakSanitizer reports memory of Foundation's Process after one child process has run.
// Suppression it backs: `Foundation7ProcessC3run`.
import Foundation

let process = Process()
process.executableURL = URL(fileURLWithPath: "/bin/true")
try process.run()
process.waitUntilExit()
print(process.terminationStatus)
