import Admin
import Foundation

// Files idp-admin creates (a new database, its WAL, the key-encryption key, backups) are private.
umask(0o077)

let result = AdminCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                          readInput: { String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) },
                          terminal: Terminal.standard())
FileHandle.standardOutput.write(Data(result.standardOutput.utf8))
FileHandle.standardError.write(Data(result.standardError.utf8))
exit(result.status)
