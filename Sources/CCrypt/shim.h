// libxcrypt's crypt_r, for verifying imported bcrypt ($2b$) hashes.
#include <crypt.h>
