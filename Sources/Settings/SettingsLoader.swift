import FoundationEssentials

/// Builds `Settings` from defaults, then a config file, then `IDP_*` environment variables.
public enum SettingsLoader {
    /// Environment variables that are not config keys but are ours.
    static let reservedEnvironment: Set<String> = ["IDP_CONFIG"]

    public struct Loaded: Sendable {
        public let settings: Settings
        /// Where each explicitly set key came from.
        public let sources: [String: SettingSource]
        /// Non-fatal findings, e.g. an unknown `IDP_*` variable.
        public let warnings: [String]
        /// The file read, and why that one (`--config`, `IDP_CONFIG`, the system file); nil for defaults only.
        public let configFile: ConfigFileChoice?
    }

    /// Read by `idp` and `idp-admin` when it exists and neither `--config` nor `IDP_CONFIG` names a file.
    /// Precedence of every key: `--config` file, else `IDP_CONFIG`, else this file; `IDP_*` over the file; defaults last.
    public static let systemConfigPath = "/etc/gatehouse/idp.conf"

    /// Which config file is read, and what chose it.
    public struct ConfigFileChoice: Sendable, Equatable, CustomStringConvertible {
        public enum Reason: String, Sendable { case flag = "--config", environment = "IDP_CONFIG", system = "the system config file" }
        public let path: String
        public let reason: Reason
        public var description: String { reason == .system ? "\(path) (the system config file)" : "\(path) (from \(reason.rawValue))" }
    }

    /// The file `load` reads for these inputs.
    public static func chooseConfigFile(configPath: String?, environment: [String: String],
                                        systemConfigPath: String? = systemConfigPath) -> ConfigFileChoice? {
        if let configPath { return ConfigFileChoice(path: configPath, reason: .flag) }
        if let path = environment["IDP_CONFIG"], !path.isEmpty { return ConfigFileChoice(path: path, reason: .environment) }
        if let systemConfigPath, FileManager.default.fileExists(atPath: systemConfigPath) {
            return ConfigFileChoice(path: systemConfigPath, reason: .system)
        }
        return nil
    }

    /// Loads settings; throws `ConfigurationError` listing every problem found.
    ///
    /// - Parameters:
    ///   - configPath: a file to read; `nil` means embedded defaults (or `IDP_CONFIG`).
    ///   - environment: usually `ProcessInfo.processInfo.environment`.
    ///   - systemConfigPath: read when present and no file is named (nil: never).
    public static func load(configPath: String?, environment: [String: String],
                            systemConfigPath: String? = systemConfigPath) throws -> Loaded {
        var problems: [ConfigProblem] = []
        var values: [String: (String, SettingSource)] = [:]

        let choice = chooseConfigFile(configPath: configPath, environment: environment, systemConfigPath: systemConfigPath)
        if let path = choice?.path {
            do {
                let text = try readText(path)
                let parsed = ConfigFile.parse(text, file: path)
                problems += parsed.problems
                for entry in parsed.entries {
                    guard SettingKey.named(entry.key) != nil else {
                        problems.append(ConfigProblem(source: .file(path, line: entry.line), key: entry.key,
                                                      message: unknownKeyMessage(entry.key)))
                        continue
                    }
                    values[entry.key] = (entry.value, .file(path, line: entry.line))
                }
            } catch {
                problems.append(ConfigProblem(source: .file(path, line: 0), key: nil, message: "cannot read the file: \(error)"))
            }
        }

        var warnings: [String] = []
        for (name, value) in environment where name.hasPrefix("IDP_") && !reservedEnvironment.contains(name) {
            let key = String(name.dropFirst(4)).lowercased()
            guard SettingKey.named(key) != nil, name == "IDP_" + key.uppercased() else {
                warnings.append("unknown environment variable \(name) ignored; " + unknownKeyMessage(key))
                continue
            }
            values[key] = (value, .environment(name))
        }

        var settings = Settings()
        for key in SettingKey.all {
            guard let (text, source) = values[key.name] else { continue }
            if let failure = key.apply(&settings, text) {
                problems.append(ConfigProblem(source: source, key: key.name, message: failure.message))
            }
        }
        if values["issuer"] == nil {
            if let derived = Settings.defaultIssuer(for: settings.listen) {
                settings.issuer = derived
            } else {
                problems.append(ConfigProblem(source: values["listen"]?.1 ?? .defaultValue, key: "issuer",
                                              message: "required when listen is a unix socket (set the public https URL, e.g. https://id.example.com/)"))
            }
        }
        if let admin = settings.adminListen, admin == settings.listen,
           !{ if case .tcp(_, 0) = admin { return true } else { return false } }() {
            problems.append(ConfigProblem(source: values["admin_listen"]?.1 ?? .defaultValue, key: "admin_listen",
                                          message: "must differ from listen: metrics are never served on the public listener"))
        }
        if settings.maxBufferedBodyBytes < settings.maxBodyBytes {
            problems.append(ConfigProblem(source: values["max_buffered_body_bytes"]?.1 ?? .defaultValue, key: "max_buffered_body_bytes",
                                          message: "must be at least max_body_bytes (\(settings.maxBodyBytes) bytes), or no body could be received"))
        }
        problems += settings.emailProblems { values[$0]?.1 ?? .defaultValue }
        if settings.isPostgreSQL, settings.keyEncryptionKey == nil, settings.keyEncryptionKeyFile == nil {
            problems.append(ConfigProblem(source: values["database"]?.1 ?? .defaultValue, key: "key_encryption_key_file",
                                          message: "required with a PostgreSQL database (the default is a file beside an SQLite database); every node needs the same key"))
        }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return Loaded(settings: settings, sources: values.mapValues(\.1), warnings: warnings.sorted(), configFile: choice)
    }

    private static func readText(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(problems: [ConfigProblem(source: .file(path, line: 0), key: nil, message: "the file is not UTF-8 text")])
        }
        return text
    }

    static func unknownKeyMessage(_ key: String) -> String {
        var message = "unknown key"
        if let nearest = Suggest.nearest(to: key, among: SettingKey.all.map(\.name)) {
            message += " (did you mean \(nearest)?)"
        }
        return message
    }
}
