import Settings

/// `idp` command-line options.
struct Options {
    var configPath: String?

    static let usage = """
        Usage: idp [--config PATH]

        Runs the Gatehouse OpenID Connect provider.

        Options:
          --config PATH   read settings from PATH (default: $IDP_CONFIG, else /etc/gatehouse/idp.conf if present, else embedded defaults)
          --version       print the version and exit
          -h, --help      print this help and exit

        Every setting can be overridden by an IDP_<KEY> environment variable; see Config/idp.conf.
        Signals: SIGTERM/SIGINT stop accepting, drain and exit; SIGHUP reloads log_level and
        trusted_proxies and reopens log_file. Under systemd (Type=notify) readiness is reported.
        Exit status: 0 after a clean shutdown, 1 startup failure, 2 usage error, 78 configuration error.
        """

    enum Outcome {
        case run(Options)
        case exit(message: String, status: Int32)
    }

    static func parse(_ arguments: ArraySlice<String>) -> Outcome {
        var options = Options()
        var remaining = arguments
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help", "help":
                return .exit(message: usage, status: 0)
            case "--version":
                return .exit(message: "idp \(Version.current)", status: 0)
            case "--config":
                guard let path = remaining.popFirst(), !path.isEmpty else {
                    return .exit(message: "idp: --config needs a path\n\n\(usage)", status: 2)
                }
                options.configPath = path
            case let flag where flag.hasPrefix("--config="):
                options.configPath = String(flag.dropFirst("--config=".count))
            default:
                var message = "idp: unknown argument \(argument)"
                if let nearest = Suggest.nearest(to: argument, among: ["--config", "--help", "--version"]) {
                    message += " (did you mean \(nearest)?)"
                }
                return .exit(message: message + "\n\n" + usage, status: 2)
            }
        }
        return .run(options)
    }
}

enum Version {
    static let current = GatehouseVersion.current
}
