// libpq, for the PostgreSQL storage backend (Debian libpq-dev).
#include <libpq-fe.h>
