import Foundation
import Testing
@testable import OIDC

/// `updated_at` as Auth0.swift reads it: `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC.
@Suite struct UserClaimsTimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_700_000_000.123, "2023-11-14T22:13:20.123Z"),
        (951_782_400.5, "2000-02-29T00:00:00.500Z"),
        (4_102_444_799.999, "2099-12-31T23:59:59.999Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
    ])
    func formatsUTCWithMilliseconds(seconds: Double, expected: String) {
        #expect(UserClaims.isoTimestamp(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test(arguments: [("Bearer abc", "abc"), ("bearer  abc ", "abc"), ("BEARER\tabc", nil), ("Basic abc", nil), ("Bearer ", nil)])
    func bearerTokensAreTakenInAnyCase(header: String, token: String?) {
        #expect(AccessTokenValidator.bearerToken(fromAuthorization: header) == token)
    }
}
