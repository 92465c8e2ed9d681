// JOSE's API is written in Crypto's types (SigningKey, PublicKey, Base64URL),
// so importing JOSE brings them along.
@_exported import Crypto
