// Fuzzes the config file parser and SettingsLoader (Sources/Settings): `key = value` lines,
// comments, quoting, and every value parser (listen, issuer, sizes, durations, proxies, ...).
//
// Invariants, from ConfigFile's and SettingsLoader's documentation:
// - each entry comes from one line: a valid key, set once, no line break in its value, line
//   numbers rising within the file; rendering the entries as a file parses to the same entries;
// - the loader, given the input as a file, either succeeds or lists at least one problem;
// - a clean file and the same keys as IDP_* variables give the same settings or the same problems;
// - no accepted value holds a NUL byte: paths, hosts and addresses reach C APIs, which would
//   silently cut them short (ValueParsers.path and unix: listeners refuse NUL for that reason).

#if canImport(Glibc)
import Glibc
#endif
@testable import Settings

/// The loader reads a path, so each input is written here first, and removed once loaded.
let configPath = (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/gatehouse-fuzz-settings-\(getpid()).conf"

func fuzz(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    let parsed = ConfigFile.parse(text, file: "fuzz.conf")
    // The line-based invariants and the environment comparison read lines the way Swift splits
    // Characters; where that differs from the byte LF ConfigFile splits on (a CRLF, a combining
    // mark after LF) the input is still parsed and loaded, and any crash still counts.
    let lineBreaksSplit = text.split(separator: "\n", omittingEmptySubsequences: false).count
        == input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    if lineBreaksSplit { checkEntries(parsed, of: text) }

    writeFile(configPath, input)
    let fromFile = load(configPath: configPath, environment: [:])
    unlink(configPath)
    if case .success = fromFile {
        // NUL in a host:port host or a proxy address is refused too (Tests/SettingsTests/FuzzRegressionTests.swift).
        for entry in parsed.entries {
            invariant(!entry.value.utf8.contains(0), "\(entry.key) accepted a value with NUL: \(describe(entry.value.utf8))")
        }
    }

    // The same keys through the environment, when the file itself is clean UTF-8.
    guard lineBreaksSplit, String(validating: input, as: UTF8.self) != nil, parsed.problems.isEmpty,
          parsed.entries.allSatisfy({ SettingKey.named($0.key) != nil }) else { return }
    var environment: [String: String] = [:]
    for entry in parsed.entries { environment["IDP_" + entry.key.uppercased()] = entry.value }
    let fromEnvironment = load(configPath: nil, environment: environment)
    switch (fromFile, fromEnvironment) {
    case (.success(let a), .success(let b)):
        invariant(a == b, "file and environment give different settings for \(describe(input))")
    case (.failure(let a), .failure(let b)):
        invariant(a == b, "file and environment give different problems: \(a) vs \(b)")
    default:
        invariant(false, "file and environment disagree on \(describe(input)): \(fromFile) vs \(fromEnvironment)")
    }
}

func checkEntries(_ parsed: (entries: [ConfigEntry], problems: [ConfigProblem]), of text: String) {
    let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    invariant(parsed.entries.count + parsed.problems.count <= lines, "more findings than the \(lines) lines")
    var previous = 0
    var keys: Set<String> = []
    for entry in parsed.entries {
        invariant(ConfigFile.isValidKey(entry.key), "invalid key \(describe(entry.key.utf8))")
        invariant(keys.insert(entry.key).inserted, "\(entry.key) set twice")
        invariant(entry.line > previous && entry.line <= lines, "line \(entry.line) after \(previous) of \(lines)")
        invariant(!entry.value.utf8.contains(UInt8(ascii: "\n")),
                  "\(entry.key) on line \(entry.line) has a line break in its value \(describe(entry.value.utf8))")
        previous = entry.line
    }
    for problem in parsed.problems {
        guard case .file(let file, let line) = problem.source else {
            invariant(false, "a file problem from \(problem.source)")
            return
        }
        invariant(file == "fuzz.conf" && line >= 1 && line <= lines, "problem at \(problem.source) of \(lines) lines")
    }

    // Quoted where that keeps the value as it is (no `"` inside), bare otherwise; a trailing
    // space keeps a final "\r" of a bare value from reading as a CRLF line end.
    let rendered = parsed.entries.map { entry in
        entry.value.contains("\"") ? "\(entry.key) = \(entry.value) " : "\(entry.key) = \"\(entry.value)\""
    }
    let reparsed = ConfigFile.parse(rendered.joined(separator: "\n"), file: "rendered.conf")
    invariant(reparsed.problems.isEmpty, "rendered entries have problems: \(reparsed.problems)")
    invariant(reparsed.entries.map { [Array($0.key.utf8), Array($0.value.utf8)] } == parsed.entries.map { [Array($0.key.utf8), Array($0.value.utf8)] },
              "rendered entries parse differently: \(rendered)")
}

enum LoadOutcome {
    case success(Settings)
    /// Problems without their source (a file line or a variable), which differs by design.
    case failure([String])
}

func load(configPath: String?, environment: [String: String]) -> LoadOutcome {
    do {
        return .success(try SettingsLoader.load(configPath: configPath, environment: environment).settings)
    } catch let error as ConfigurationError {
        invariant(!error.problems.isEmpty, "a ConfigurationError without problems")
        return .failure(error.problems.map { "\($0.key ?? "-"): \($0.message)" }.sorted())
    } catch {
        invariant(false, "SettingsLoader threw \(error)")
        return .failure([])
    }
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    invariant(fd >= 0, "cannot create \(path): errno \(errno)")
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        invariant(written > 0, "cannot write \(path): errno \(errno)")
        offset += written
    }
    close(fd)
}
