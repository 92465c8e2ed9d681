import Crypto
import JOSE
import Testing

/// Published vectors from RFC 7515 and RFC 7638.
@Suite("RFC vectors")
struct RFCVectorTests {
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    static let rsaJWK = JWK(kty: "RSA", n: """
        ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-\
        pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2Cap\
        Hg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h\
        4FRWyuXpoQ
        """, e: "AQAB")

    static let ecJWK = JWK(kty: "EC", crv: "P-256",
                           x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                           y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")

    @Test("RFC 7515 A.2: RS256 example verifies with the RFC key")
    func rs256() throws {
        let key = try Self.rsaJWK.publicKey()
        let input = "eyJhbGciOiJSUzI1NiJ9." + Self.payload
        let signature = try Base64URL.decode("""
            cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr\
            7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi\
            12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_Ioyp\
            GlUPQGe77Rw
            """)
        #expect(key.verify(signature, for: Array(input.utf8)))
        #expect(!key.verify(signature, for: Array((input + "x").utf8)))
        // Through JWS.verify the RFC token is refused only because it has no kid.
        let compact = input + "." + Base64URL.encode(signature)
        #expect(throws: JWSError.invalidHeader) { try JWS.verify(compact) { _ in (key, .rs256) } }
    }

    @Test("RFC 7515 A.3: ES256 example verifies with the RFC key")
    func es256() throws {
        let key = try Self.ecJWK.publicKey()
        let input = "eyJhbGciOiJFUzI1NiJ9." + Self.payload
        let signature = try Base64URL.decode(
            "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q")
        #expect(signature.count == 64)
        #expect(key.verify(signature, for: Array(input.utf8)))
        #expect(!key.verify(derFromRaw(signature), for: Array(input.utf8)))
    }

    @Test("RFC 7638 §3.1 thumbprint")
    func thumbprint() throws {
        let jwk = JWK(kty: "RSA", alg: "RS256", kid: "2011-04-29", n: """
            0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknj\
            hMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQ\
            vRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw
            """, e: "AQAB")
        #expect(try jwk.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(JWK.thumbprint(of: try jwk.publicKey()) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }
}
