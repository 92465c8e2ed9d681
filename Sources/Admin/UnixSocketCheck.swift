import Foundation

/// `doctor` for a unix-socket listener: the socket exists, who may connect (owner, group, mode), and
/// a real connection, so a proxy's 502 from a 0660 socket it cannot open is found here.
enum UnixSocketCheck {
    static func check(_ path: String) -> DoctorCommand.Check {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .init(name: "unix_socket", verdict: .fail,
                         message: "\(path) does not exist: idp is not running, or listen names another path")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            return .init(name: "unix_socket", verdict: .fail, message: "\(path) exists but is not a socket")
        }
        let owner = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
        let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "gid \(info.st_gid)"
        let mode = Int(info.st_mode) & 0o777
        let described = "\(path): owner \(owner), group \(group), mode \(String(format: "%04o", mode))"
        let who = mode & 0o002 != 0 ? "any user can connect"
            : mode & 0o020 != 0 ? "the proxy's user (nginx: www-data) must be \(owner) or in group \(group): usermod -aG \(group) www-data, then restart nginx"
            : "only \(owner) can connect (the group has no write permission)"
        switch UnixSocketProbe.connect(path) {
        case 0:
            return .init(name: "unix_socket", verdict: mode & 0o022 == 0 ? .warn : .ok, message: "\(described); connected. \(who)")
        case let code:
            let reason = String(cString: strerror(code))
            let fix = code == EACCES ? " (this user, uid \(geteuid()), may not connect; \(who))" : code == ECONNREFUSED ? " (nothing accepts on it: idp stopped and left the file)" : ""
            return .init(name: "unix_socket", verdict: .fail, message: "\(described); connect failed: \(reason)\(fix)")
        }
    }
}
