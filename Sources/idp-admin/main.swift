import Admin
import Foundation

let result = AdminCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                          readInput: { String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) })
FileHandle.standardOutput.write(Data(result.standardOutput.utf8))
FileHandle.standardError.write(Data(result.standardError.utf8))
exit(result.status)
