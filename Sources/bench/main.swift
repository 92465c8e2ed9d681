// bench: micro-benchmarks, one subcommand per area.
//
//   bench crypto [--seconds S] [--clock cpu|wall]
//
// Each subcommand lives in its own file as a `BenchCommand`; add it to
// `BenchRegistry.commands` to make it reachable.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let command = BenchRegistry.command(named: name) else {
    FileHandle.standardError.write(Data(BenchRegistry.usage().utf8))
    exit(arguments.first.map { ["-h", "--help", "help"].contains($0) } == true ? 0 : 64)
}
do {
    try command.run(arguments: Array(arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("bench \(name): \(error)\n".utf8))
    exit(1)
}
