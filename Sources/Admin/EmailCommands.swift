import Foundation
import KeyManagement
import Mail
import Model
import Settings
import Storage

/// `idp-admin email test | queue`: check the configured delivery, and see what the daemon's
/// background sender has pending, failed or recently sent (README "Email").
enum EmailCommands {
    static let all = [test, queue]

    static let test = Command(
        ["email", "test"],
        summary: "Send a test message to ADDRESS through the configured transport, now, and report the exact failure.",
        usage: "email test ADDRESS [--locale en|ja|…] [--queue] [--json]",
        details: """
            Renders the `test` template (email_templates overrides apply) and delivers it
            synchronously through smtp_url or sendmail_command, printing what went wrong:
            cannot connect, TLS (no STARTTLS, untrusted certificate), authentication, a refused
            recipient, a timeout or a failing command. Exit status 1 when it was not delivered.
            With --queue the message is put in the daemon's queue instead, as the account flows
            do, and the running idp sends it within a few seconds (see `email queue`).
            """,
        valueFlags: ["--locale"], switchFlags: ["--queue"], positionals: 1...1,
        run: { invocation in
            let address = invocation.arguments.positionals[0]
            let settings = try invocation.settings()
            guard let delivery = settings.emailDelivery else {
                throw AdminError.failed("email is not configured: set email_from and smtp_url or sendmail_command (README \"Email\")")
            }
            guard MailAddress.isValidAddress(address) else { throw AdminError.usage("not a valid email address: \(address)") }
            let locale = invocation.arguments.value("--locale") ?? "en"
            let values = ["app_name": "Gatehouse", "email": address]
            if invocation.arguments.has("--queue") {
                let store = try invocation.store()
                let key = try manager(invocation, store).derivedKey(purpose: MailOutboxKey.purpose)
                do {
                    try SQLiteMailOutbox(store: store, key: key).enqueue(MailMessage(to: address, template: .test, locale: locale, values: values), at: Date())
                } catch {
                    throw AdminError.failed("cannot queue the message: \(error)")
                }
                try invocation.audit("email.test_queued", details: ["recipient_domain": domain(address)])
                return Output(json: ["queued": true, "to": address], text: "queued a test message to \(address); `idp-admin email queue` shows its progress")
            }
            let bytes: [UInt8]
            let from: MailAddress
            do {
                from = try MailSetup.sender(for: delivery)
                let rendered = try MailSetup.templates(for: delivery).render("test", locale: locale, values: values)
                bytes = try OutgoingMessage(from: from, to: MailAddress(address: address), subject: rendered.subject, text: rendered.text,
                                            html: rendered.html, date: Date()).composed()
            } catch {
                throw AdminError.failed("cannot compose the message: \(error)")
            }
            let transport: any MailTransport
            do {
                transport = try MailSetup.transport(for: delivery)
            } catch {
                throw AdminError.configuration("\(error)")
            }
            let started = Date()
            do {
                try transport.send(bytes, from: from.address, to: [address])
            } catch let error as DeliveryError {
                let json: [String: Any] = ["sent": false, "to": address, "via": via(delivery), "failure": error.kind.rawValue,
                                           "error": error.description, "reply_code": error.replyCode.map { $0 as Any } ?? NSNull()]
                var output = Output(json: json, text: "not sent via \(via(delivery)): \(error.description)")
                output.status = 1
                return output
            } catch {
                throw AdminError.failed("not sent: \(error)")
            }
            let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
            return Output(json: ["sent": true, "to": address, "via": via(delivery), "milliseconds": milliseconds],
                          text: "sent a test message to \(address) via \(via(delivery)) in \(milliseconds) ms")
        })

    static let queue = Command(
        ["email", "queue"],
        summary: "What the mail queue holds: pending and failed messages, and those sent recently.",
        usage: "email queue [--status pending|failed|sent] [--limit 50] [--json]",
        details: """
            Newest first: id, status, recipient, template, locale, attempts, when it was queued,
            when it is tried next (pending) or finished, and the last error. The values a message
            was rendered with (codes, links) are never shown; they are deleted once it is sent
            or has failed. Sent and failed messages are purged after 7 days.
            """,
        valueFlags: ["--status", "--limit"],
        run: { invocation in
            let store = try invocation.store()
            let limitText = invocation.arguments.value("--limit") ?? "50"
            guard let limit = Int(limitText), (1...10_000).contains(limit) else { throw AdminError.usage("--limit must be 1 to 10000") }
            var statuses: Set<OutboxEntry.Status> = [.pending, .sending, .sent, .failed]
            if let status = invocation.arguments.value("--status") {
                guard let chosen = OutboxEntry.Status(rawValue: status), chosen != .sending else {
                    throw AdminError.usage("--status must be pending, failed or sent")
                }
                statuses = chosen == .pending ? [.pending, .sending] : [chosen]
            }
            let entries: [OutboxEntry]
            do {
                entries = try SQLiteMailOutbox.list(in: store, limit: limit, statuses: statuses)
            } catch {
                throw AdminError.failed("cannot read the mail queue: \(error)")
            }
            func time(_ date: Date?) -> String { date.map { $0.formatted(.iso8601) } ?? "-" }
            let rows = entries.map { entry in
                [String(entry.id), entry.status.rawValue, entry.recipient, entry.template, entry.locale, String(entry.attempts),
                 time(entry.createdAt), time(entry.nextAttemptAt ?? entry.finishedAt), entry.lastError ?? ""]
            }
            let json = entries.map { entry -> [String: Any] in
                ["id": entry.id, "status": entry.status.rawValue, "to": entry.recipient, "template": entry.template, "locale": entry.locale,
                 "attempts": entry.attempts, "queued_at": time(entry.createdAt),
                 "next_attempt_at": entry.nextAttemptAt.map { time($0) as Any } ?? NSNull(),
                 "last_attempt_at": entry.lastAttemptAt.map { time($0) as Any } ?? NSNull(),
                 "finished_at": entry.finishedAt.map { time($0) as Any } ?? NSNull(),
                 "last_error": entry.lastError.map { $0 as Any } ?? NSNull()]
            }
            return Output.table(["ID", "STATUS", "TO", "TEMPLATE", "LOCALE", "ATTEMPTS", "QUEUED", "NEXT/FINISHED", "LAST ERROR"], rows, json: json)
        })

    private static func via(_ delivery: EmailDelivery) -> String {
        switch delivery.transport {
        case .smtp(let url, _, _, _, _): url.description
        case .sendmail(let command): command[0]
        }
    }

    private static func domain(_ address: String) -> String { address.split(separator: "@").last.map(String.init) ?? "" }

    private static func manager(_ invocation: Invocation, _ store: any GatehouseStorage) throws -> KeyManager {
        do {
            return try KeyManager.open(store: store, settings: invocation.settings())
        } catch let error as KeyError {
            throw AdminError.failed(error.description)
        }
    }
}
