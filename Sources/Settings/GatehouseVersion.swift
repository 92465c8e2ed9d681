/// The release both binaries report (`idp --version`, `idp-admin --version`).
public enum GatehouseVersion {
    public static let current = "0.1.0"
}
