import FoundationEssentials
import Model

/// Refresh-token reuse detection (RFC 9700 §4.14.2): a rotated token presented again is reuse — the
/// whole family dies — unless it is a retry inside the application's overlap window. A store applies
/// this rule inside its rotation transaction (`RefreshTokenStore.rotate`), so the decision and the
/// family's revocation commit together.
public struct RefreshReuseRule: RefreshReuseJudge {
    /// The longest overlap window an application may configure, in seconds.
    public static let maximumWindow = RefreshRotation.maximumReuseInterval

    /// Seconds after a rotation in which presenting the old token again returns the same successor
    /// (for a client that lost the response); 0 disables the window.
    public let window: Int

    public init(window: Int) {
        self.window = min(max(window, 0), Self.maximumWindow)
    }

    /// - A revoked token is `.revoked`, whatever else holds.
    /// - A retry is only that: inside the window, with the same derived successor (same server key),
    ///   whose successor is still unused and unrevoked.
    /// - Anything else that was rotated is `.reused`.
    public func outcome(presented: RefreshToken, storedSuccessor: RefreshToken?, expectedSuccessorHash: String,
                        at time: Date) -> RefreshRotation {
        guard presented.revokedAt == nil, let rotatedAt = presented.rotatedAt else { return .revoked(presented) }
        guard window > 0, presented.successorHash == expectedSuccessorHash,
              time.timeIntervalSince(rotatedAt) <= TimeInterval(window), let successor = storedSuccessor else {
            return .reused(presented)
        }
        guard successor.revokedAt == nil else { return .revoked(successor) }
        guard successor.rotatedAt == nil else { return .reused(presented) }
        return .retried(presented: presented, successor: successor)
    }
}
