// libargon2 (the Password Hashing Competition's reference implementation) for Argon2id password
// hashes (RFC 9106), and the allocator Gatehouse hands it.
#include <argon2.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/// Argon2's memory straight from mmap(2), back to the kernel at munmap(2). Through malloc, a freed
/// 7 MiB block raises glibc's mmap threshold above itself, so every later hash would be served
/// from, and stay resident in, the calling thread's arena: one block per worker thread for good.
static inline int gh_argon2_allocate(uint8_t **memory, size_t bytes) {
    void *mapped = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *memory = mapped == MAP_FAILED ? NULL : (uint8_t *)mapped;
    return *memory == NULL ? ARGON2_MEMORY_ALLOCATION_ERROR : ARGON2_OK;
}

static inline void gh_argon2_free(uint8_t *memory, size_t bytes) {
    if (memory != NULL) munmap(memory, bytes);
}
