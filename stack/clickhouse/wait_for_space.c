/*
 * Makes the ClickHouse engine wait for disk space instead of committing parts it could not write.
 *
 * chdb-core's engine (26.9; 25.8 and 26.7 alike) carries on after a write(2) fails: an insert or merge whose
 * part files meet ENOSPC renames the part into place and answers "ok" with its files empty or cut short, and
 * every later read of the table fails ("Empty marks file", "Cannot read all data"). The engine is a binary
 * wheel loaded with RTLD_DEEPBIND (so LD_PRELOAD cannot reach its calls into libc), so the server process
 * loads this library and calls ioscale_wait_for_space_hook() on the engine before it starts: the engine's
 * GOT entries for write, pwrite, pwrite64 and writev are pointed at wrappers that retry a write failing with
 * ENOSPC or EDQUOT until it succeeds. A full disk then pauses the engine's writers, and what they write once
 * space returns is whole. Other errors pass through unchanged.
 *
 * Not from a library: nothing packaged for Debian or PyPI rewrites one loaded object's imports; the engine's
 * own imports of these four functions are the whole surface (nm -D --undefined-only).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* How often a write that met a full disk is tried again, and how often the wait is reported on stderr. */
#define RETRY_NS (100L * 1000 * 1000)
#define REPORT_EVERY_NS (10L * 1000 * 1000 * 1000)

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);

static write_fn real_write;
static pwrite_fn real_pwrite;
static pwrite64_fn real_pwrite64;
static writev_fn real_writev;

static int out_of_space(ssize_t result) {
    return result < 0 && (errno == ENOSPC || errno == EDQUOT);
}

static void wait_for_space(int fd, long *waited_ns) {
    if (*waited_ns % REPORT_EVERY_NS == 0) {
        char line[160];
        int n = snprintf(line, sizeof line,
                         "ioscale wait_for_space: no space left on device writing fd %d; waited %ld s, "
                         "retrying until space returns\n", fd, *waited_ns / (1000L * 1000 * 1000));
        if (n > 0)
            (void)!real_write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
    struct timespec pause = {0, RETRY_NS};
    nanosleep(&pause, NULL);
    *waited_ns += RETRY_NS;
}

/* Returns what `call` returns once it fails for another reason than a full disk, or succeeds. */
#define RETURN_WHEN_WRITTEN(fd, call)             \
    do {                                          \
        long waited_ns = 0;                       \
        for (;;) {                                \
            ssize_t r = (call);                   \
            if (!out_of_space(r))                 \
                return r;                         \
            wait_for_space((fd), &waited_ns);     \
        }                                         \
    } while (0)

static ssize_t write_waiting(int fd, const void *buf, size_t count) {
    RETURN_WHEN_WRITTEN(fd, real_write(fd, buf, count));
}

static ssize_t pwrite_waiting(int fd, const void *buf, size_t count, off_t offset) {
    RETURN_WHEN_WRITTEN(fd, real_pwrite(fd, buf, count, offset));
}

static ssize_t pwrite64_waiting(int fd, const void *buf, size_t count, off64_t offset) {
    RETURN_WHEN_WRITTEN(fd, real_pwrite64(fd, buf, count, offset));
}

static ssize_t writev_waiting(int fd, const struct iovec *iov, int iovcnt) {
    RETURN_WHEN_WRITTEN(fd, real_writev(fd, iov, iovcnt));
}

static void *wrapper_for(const char *name) {
    if (strcmp(name, "write") == 0)
        return (void *)write_waiting;
    if (strcmp(name, "pwrite") == 0)
        return (void *)pwrite_waiting;
    if (strcmp(name, "pwrite64") == 0)
        return (void *)pwrite64_waiting;
    if (strcmp(name, "writev") == 0)
        return (void *)writev_waiting;
    return NULL;
}

struct hook {
    const char *path;   /* the object to hook, its real path */
    int found;
    int patched;        /* GOT entries pointed at a wrapper */
    int failed;         /* mprotect refused */
};

/* ld.so relocates most d_ptr values in place; some ports leave them relative to the load address. */
static uintptr_t absolute(uintptr_t base, uintptr_t ptr) {
    return ptr < base ? base + ptr : ptr;
}

static void patch_table(struct dl_phdr_info *info, struct hook *h, const ElfW(Rela) *rela, size_t size,
                        const ElfW(Sym) *symtab, const char *strtab, uintptr_t relro_start, uintptr_t relro_end) {
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < size / sizeof *rela; i++) {
        unsigned long type = ELF64_R_TYPE(rela[i].r_info);
#if defined(__x86_64__)
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
            continue;
#elif defined(__aarch64__)
        if (type != R_AARCH64_JUMP_SLOT && type != R_AARCH64_GLOB_DAT)
            continue;
#else
#error "wait_for_space knows the relocations of x86_64 and aarch64 only"
#endif
        void *wrapper = wrapper_for(strtab + symtab[ELF64_R_SYM(rela[i].r_info)].st_name);
        if (wrapper == NULL)
            continue;
        uintptr_t slot = info->dlpi_addr + rela[i].r_offset;
        uintptr_t first = slot & ~(uintptr_t)(page - 1);
        if (mprotect((void *)first, (size_t)page, PROT_READ | PROT_WRITE) != 0) {
            h->failed++;
            continue;
        }
        *(void **)slot = wrapper;
        /* Read-only again where the loader made it so (RELRO, which covers the GOT under BIND_NOW). */
        if (first >= relro_start && first + (uintptr_t)page <= relro_end)
            mprotect((void *)first, (size_t)page, PROT_READ);
        h->patched++;
    }
}

static int hook_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct hook *h = data;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0;
    char *real = realpath(info->dlpi_name, NULL);
    int same = real != NULL && strcmp(real, h->path) == 0;
    free(real);
    if (!same)
        return 0;
    h->found = 1;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t relro_start = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) {
            relro_start = info->dlpi_addr + ph->p_vaddr;
            relro_end = relro_start + ph->p_memsz;
        }
    }
    if (dyn == NULL)
        return 1;
    uintptr_t base = info->dlpi_addr, jmprel = 0, rela = 0, symtab = 0, strtab = 0;
    size_t jmprel_size = 0, rela_size = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_JMPREL: jmprel = absolute(base, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmprel_size = dyn->d_un.d_val; break;
        case DT_RELA: rela = absolute(base, dyn->d_un.d_ptr); break;
        case DT_RELASZ: rela_size = dyn->d_un.d_val; break;
        case DT_SYMTAB: symtab = absolute(base, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = absolute(base, dyn->d_un.d_ptr); break;
        }
    }
    if (symtab == 0 || strtab == 0)
        return 1;
    if (jmprel != 0)
        patch_table(info, h, (const ElfW(Rela) *)jmprel, jmprel_size, (const ElfW(Sym) *)symtab,
                    (const char *)strtab, relro_start, relro_end);
    if (rela != 0)
        patch_table(info, h, (const ElfW(Rela) *)rela, rela_size, (const ElfW(Sym) *)symtab,
                    (const char *)strtab, relro_start, relro_end);
    return 1;
}

/*
 * Points the write imports of the loaded object at `path` (any path naming its file) at the waiting wrappers. Returns the number of GOT entries changed, -1 when no loaded
 * object has that name, -2 when mprotect refused an entry.
 */
int ioscale_wait_for_space_hook(const char *path) {
    real_write = (write_fn)dlsym(RTLD_NEXT, "write");
    real_pwrite = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = (pwrite64_fn)dlsym(RTLD_NEXT, "pwrite64");
    real_writev = (writev_fn)dlsym(RTLD_NEXT, "writev");
    if (!real_write || !real_pwrite || !real_pwrite64 || !real_writev)
        return -3;
    char *real = realpath(path, NULL);
    if (real == NULL)
        return -1;
    struct hook h = {real, 0, 0, 0};
    dl_iterate_phdr(hook_object, &h);
    free(real);
    if (!h.found)
        return -1;
    if (h.failed)
        return -2;
    return h.patched;
}
