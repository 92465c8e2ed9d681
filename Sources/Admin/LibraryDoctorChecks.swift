import Mail
import PostgreSQL
import Settings

/// `doctor`'s line for each library Gatehouse opens only when it needs it (README "Memory and
/// start"): whether it loads here, failing when this configuration needs it.
enum LibraryDoctorChecks {
    typealias Check = DoctorCommand.Check

    static func run(_ settings: Settings) -> [Check] {
        var smtp = false
        if case .smtp? = settings.emailDelivery?.transport { smtp = true }
        let curl: String?
        do { try LibCurl.load(); curl = nil } catch { curl = error.description }
        let pq: String?
        do { try LibPQ.load(); pq = nil } catch { pq = error.message }
        return [
            verdict("libcurl", problem: curl, usedBy: "SMTP delivery and upstream connections",
                    neededBy: smtp ? "smtp_url is set" : nil),
            verdict("libpq", problem: pq, usedBy: "a postgresql:// database",
                    neededBy: settings.isPostgreSQL ? "database is a PostgreSQL URL" : nil),
        ]
    }

    /// ok when it loads; else fail when `neededBy` says why this configuration needs it, warn otherwise.
    static func verdict(_ name: String, problem: String?, usedBy: String, neededBy: String?) -> Check {
        guard let problem else {
            return Check(name: name, verdict: .ok, message: "loads (opened only for \(usedBy))")
        }
        if let neededBy {
            return Check(name: name, verdict: .fail, message: "\(problem); needed: \(neededBy)")
        }
        return Check(name: name, verdict: .warn, message: "\(problem); needed only for \(usedBy)")
    }
}
