import Crypto
import Foundation
import JOSE
import Model
import Storage

/// `idp-admin users import FILE`: Auth0's bulk user import/export format.
///
/// The file is a JSON array of user objects, or NDJSON (one object per line, as Auth0's export
/// job writes). Fields: `email` (required), `email_verified`, `user_id` (kept when it already has
/// the `provider|id` shape, else given the `auth0|` prefix; generated when absent), `name`,
/// `given_name`, `family_name`, `nickname`, `picture`, `blocked`, and the password as either
/// `password_hash` (a bcrypt `$2a$`/`$2b$`/`$2y$` hash) or `custom_password_hash`
/// (`{"algorithm":"bcrypt","hash":{"value":"$2b$…"}}`). A bcrypt hash is stored as it is:
/// the daemon verifies it and replaces it with Argon2id at the user's next successful sign-in.
/// Other fields (`app_metadata`, `user_metadata`, …) are ignored.
enum UserImport {
    static let command = Command(
        ["users", "import"],
        summary: "Import users from an Auth0 export (JSON array or NDJSON); re-running is safe.",
        usage: "users import FILE [--json]",
        details: """
            FILE ("-" for standard input) holds Auth0's bulk import/export shape: a JSON array of objects, or one
            object per line (NDJSON). Each needs "email"; optional: "email_verified", "user_id" (kept when it is
            provider|id, else prefixed with auth0|), "name", "given_name", "family_name", "nickname", "picture",
            "blocked", and "password_hash" (bcrypt $2a$/$2b$/$2y$) or "custom_password_hash" with algorithm bcrypt
            ({"algorithm":"bcrypt","hash":{"value":"$2b$…"}}). Bcrypt hashes are kept and move to Argon2id at
            the user's next sign-in; users without a hash need `users set-password`.
            A record whose email already exists (in any case) is skipped and reported as "exists". Invalid records
            are reported with their index (1-based: position in the array, or line number in NDJSON) and email;
            the others are imported. Exit status 1 when any record failed.
            --json prints {"imported": N, "skipped": N, "failed": [{"index": …, "email": …, "error": …}]}.
            """,
        positionals: 1...1,
        run: { invocation in
            let path = invocation.arguments.positionals[0]
            let data: Data
            if path == "-" {
                data = Data(invocation.standardInput().utf8)
            } else {
                guard let contents = FileManager.default.contents(atPath: path) else {
                    throw AdminError.failed("cannot read \(path)")
                }
                data = contents
            }
            let records = try parse(data)
            let users = SQLiteUserStore(store: try invocation.store())
            var report = Report()
            // On a terminal: count, rate and time left as it goes; nothing when output goes to a file or pipe.
            let progress = invocation.progress("importing users", total: records.count)
            let started = Date()
            for record in records {
                report.add(record, outcome: importOne(record, into: users, invocation: invocation))
                progress.advance()
            }
            progress.finish()
            report.seconds = Date().timeIntervalSince(started)
            try invocation.audit("users.imported", details: ["file": path, "imported": String(report.imported),
                                                              "skipped": String(report.skipped.count), "failed": String(report.failed.count)])
            var output = Output(json: report.json, text: report.text)
            output.status = report.failed.isEmpty ? 0 : 1
            return output
        })

    /// One record of the file: its 1-based index and the object (or why it is not one).
    struct Record {
        let index: Int
        let object: [String: JSONValue]?
        let parseError: String?

        var email: String? { object?["email"]?.stringValue }
    }

    enum Outcome {
        case imported
        case exists
        case failed(String)
    }

    struct Report {
        var imported = 0
        var seconds: TimeInterval = 0
        var skipped: [(index: Int, email: String)] = []
        var failed: [(index: Int, email: String?, error: String)] = []

        mutating func add(_ record: Record, outcome: Outcome) {
            switch outcome {
            case .imported: imported += 1
            case .exists: skipped.append((record.index, record.email ?? ""))
            case .failed(let error): failed.append((record.index, record.email, error))
            }
        }

        var json: [String: Any] {
            ["imported": imported, "skipped": skipped.count,
             "failed": failed.map { ["index": $0.index, "email": $0.email ?? NSNull(), "error": $0.error] as [String: Any] }]
        }

        var text: String {
            var lines = ["imported \(imported), skipped \(skipped.count) (already exist), failed \(failed.count)"
                         + String(format: " in %.1fs", seconds)]
            lines += skipped.map { "record \($0.index) (\($0.email)): exists" }
            lines += failed.map { "record \($0.index) (\($0.email ?? "no email")): error: \($0.error)" }
            return lines.joined(separator: "\n")
        }
    }

    /// Splits the file into records: a JSON array, or NDJSON.
    static func parse(_ data: Data) throws -> [Record] {
        let text = String(decoding: data, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.first == "[" {
            let array: [JSONValue]
            do {
                array = try JSONDecoder().decode([JSONValue].self, from: Data(trimmed.utf8))
            } catch {
                throw AdminError.failed("the file starts with [ but is not a valid JSON array: \(describe(error))")
            }
            return array.enumerated().map { offset, element in
                guard case .object(let object) = element else { return Record(index: offset + 1, object: nil, parseError: "not a JSON object") }
                return Record(index: offset + 1, object: object, parseError: nil)
            }
        }
        var records: [Record] = []
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !content.isEmpty else { continue }
            guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(content.utf8)) else {
                records.append(Record(index: offset + 1, object: nil, parseError: "not a JSON object"))
                continue
            }
            records.append(Record(index: offset + 1, object: object, parseError: nil))
        }
        guard !records.isEmpty else { throw AdminError.failed("the file holds no users") }
        return records
    }

    private static func describe(_ error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return context.underlyingError.map { "\($0)" } ?? context.debugDescription
        }
        return "\(error)"
    }

    /// Validates and stores one record.
    static func importOne(_ record: Record, into users: SQLiteUserStore, invocation: Invocation) -> Outcome {
        let user: User
        do {
            guard let object = record.object else { return .failed(record.parseError ?? "not a JSON object") }
            user = try self.user(from: object)
        } catch let error as RecordError {
            return .failed(error.message)
        } catch {
            return .failed("\(error)")
        }
        do {
            if try users.find(email: user.email) != nil { return .exists }
            if try users.find(userID: user.userID) != nil {
                return .failed("user_id \(user.userID) is taken by a user with another email")
            }
            try users.create(user)
        } catch StorageError.alreadyExists {
            // A concurrent import or create took the email in between.
            return .exists
        } catch {
            return .failed(error.description)
        }
        do {
            try invocation.audit("users.created", userID: user.userID, details: ["email": user.email, "source": "import"])
        } catch {
            return .failed("imported, but the audit event could not be written: \(error)")
        }
        return .imported
    }

    struct RecordError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// The user a record describes, or why it is invalid.
    static func user(from object: [String: JSONValue]) throws -> User {
        guard let emailValue = object["email"] else { throw RecordError("email is required") }
        guard let email = emailValue.stringValue, UserCommands.looksLikeEmail(email) else {
            throw RecordError("email is not an email address")
        }
        let userID = try userID(object["user_id"])
        let hash = try passwordHash(object)
        let picture = try string(object, "picture")
        if let picture, let problem = UserCommands.pictureProblem(picture) { throw RecordError("picture: \(problem)") }
        let now = wholeSeconds(Date())
        return User(userID: userID, email: email, emailVerified: try bool(object, "email_verified") ?? false, passwordHash: hash,
                    name: try string(object, "name"), givenName: try string(object, "given_name"),
                    familyName: try string(object, "family_name"), nickname: try string(object, "nickname"),
                    picture: picture, blocked: try bool(object, "blocked") ?? false, createdAt: now)
    }

    /// Kept when it is `provider|id`; a bare id gets the `auth0|` prefix; absent: a new one.
    static func userID(_ value: JSONValue?) throws -> String {
        guard let value, value != .null else { return UserCommands.newUserID() }
        guard let id = value.stringValue else { throw RecordError("user_id must be a string") }
        guard !id.isEmpty, id.count <= 255, id.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
            throw RecordError("user_id must be 1 to 255 printable ASCII characters")
        }
        let parts = id.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard !parts[0].isEmpty, !parts[1].isEmpty else { throw RecordError("user_id \(id) is not provider|id") }
            return id
        }
        return "auth0|" + id
    }

    /// The bcrypt hash from `password_hash` or `custom_password_hash`, or nil for none.
    static func passwordHash(_ object: [String: JSONValue]) throws -> String? {
        let plain = object["password_hash"].flatMap { $0 == .null ? nil : $0 }
        let custom = object["custom_password_hash"].flatMap { $0 == .null ? nil : $0 }
        if plain != nil && custom != nil { throw RecordError("give password_hash or custom_password_hash, not both") }
        if let plain {
            guard let hash = plain.stringValue, isBcrypt(hash) else {
                throw RecordError("password_hash is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters)")
            }
            return try withinSignInCost(hash)
        }
        if let custom {
            guard case .object(let spec) = custom else { throw RecordError("custom_password_hash must be an object") }
            let algorithm = spec["algorithm"]?.stringValue ?? "(none)"
            guard algorithm == "bcrypt" else {
                throw RecordError("custom_password_hash algorithm \(algorithm) is not supported (only bcrypt)")
            }
            guard case .object(let hashObject)? = spec["hash"], let hash = hashObject["value"]?.stringValue, isBcrypt(hash) else {
                throw RecordError("custom_password_hash.hash.value is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters)")
            }
            return try withinSignInCost(hash)
        }
        return nil
    }

    /// The most a sign-in spends on an imported hash: cost 18 already takes seconds here, and every
    /// attempt on such an account would hold a worker that long (`PasswordHash` refuses more).
    static let maximumSignInCost = 18

    /// Refuses a bcrypt hash that no sign-in would verify, instead of importing a user who can never sign in.
    static func withinSignInCost(_ hash: String) throws -> String {
        let cost = Int(String(decoding: Array(hash.utf8)[4..<6], as: UTF8.self)) ?? 0
        guard cost <= maximumSignInCost else {
            throw RecordError("bcrypt cost \(cost) is above \(maximumSignInCost), the most a sign-in verifies; "
                              + "import this user without a password hash and have them reset it")
        }
        return hash
    }

    /// `$2a$`/`$2b$`/`$2y$`, a two-digit cost from 04 to 31, and 53 characters of bcrypt's base64.
    static func isBcrypt(_ hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, hash.hasPrefix("$2a$") || hash.hasPrefix("$2b$") || hash.hasPrefix("$2y$"),
              bytes[6] == UInt8(ascii: "$"), let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), (4...31).contains(cost) else {
            return false
        }
        return bytes[7...].allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/")
        }
    }

    private static func string(_ object: [String: JSONValue], _ key: String) throws -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw RecordError("\(key) must be a string") }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func bool(_ object: [String: JSONValue], _ key: String) throws -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw RecordError("\(key) must be true or false") }
        return flag
    }
}
