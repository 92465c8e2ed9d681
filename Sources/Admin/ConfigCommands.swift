import Settings

/// `idp-admin config check`: validates settings exactly as the daemon does.
enum ConfigCommands {
    static let check = Command(
        ["config", "check"],
        summary: "Validate the configuration as idp would and print the effective settings.",
        usage: "config check [--config PATH] [--json]",
        details: "Reads --config (or $IDP_CONFIG) and IDP_* variables. Exits 78 listing every problem when the\nconfiguration is unusable. Secret values are masked.",
        run: { invocation in
            let loaded: SettingsLoader.Loaded
            do {
                loaded = try invocation.loaded()
            } catch let error as ConfigurationError {
                throw AdminError.configuration(error.description)
            }
            let effective = EffectiveSettings.describe(loaded.settings)
            var rows: [[String]] = []
            var json: [String: Any] = [:]
            for key in SettingKey.all {
                let value = key.isSecret ? "********" : effective[key.name] ?? ""
                let source = loaded.sources[key.name]?.description ?? "default"
                rows.append([key.name, value, source])
                json[key.name] = ["value": value, "source": source]
            }
            var output = Output.table(["KEY", "VALUE", "SOURCE"], rows, json: ["settings": json, "warnings": loaded.warnings])
            if !loaded.warnings.isEmpty {
                output = Output(json: output.json.value, text: output.text + "\n\n" + loaded.warnings.map { "warning: \($0)" }.joined(separator: "\n"))
            }
            return output
        })
}
