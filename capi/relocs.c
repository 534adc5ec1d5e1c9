/* Gives back pages of this library that the host need not keep resident:
 * the relocation table once the dynamic loader has applied it, and (see
 * pmcp_release_readonly) the code and read-only data touched only while
 * starting.
 *
 * A Go shared library is position-independent and its runtime tables are
 * full of pointers, each relocated at load: 57,000 entries, 1.3 MiB that
 * the loader reads once, before any constructor runs, and no one reads
 * again. Left alone they stay resident for the life of the host process,
 * a Node or Python interpreter where they were a fiftieth of its memory.
 * They are pages of the file mapped read-only and never written, so
 * MADV_DONTNEED only unmaps them: were anything to read them again, the
 * kernel would map them again from the file. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Whether target lies in one of the loaded segments of info's object. */
static int contains(const struct dl_phdr_info *info, uintptr_t target) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && target >= start && target - start < ph->p_memsz) return 1;
  }
  return 0;
}

/* Hands back the whole pages of [start, end): the first and last may share
 * other data, which stays. */
static void release_pages(uintptr_t start, uintptr_t end) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  start = (start + page - 1) & ~(page - 1);
  end &= ~(page - 1);
  if (end > start) madvise((void *)start, end - start, MADV_DONTNEED);
}

/* The relocation table of the object containing target, as an address
 * range; dl_iterate_phdr's callback. */
struct relocs {
  uintptr_t target, start, end;
};

static int find_relocs(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct relocs *r = data;
  if (!contains(info, r->target)) return 0;
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
  }
  if (dyn == NULL) return 1;
  uintptr_t rela = 0, size_bytes = 0;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    if (dyn->d_tag == DT_RELA) rela = dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_RELASZ) size_bytes = dyn->d_un.d_val;
  }
  if (rela == 0 || size_bytes == 0) return 1;
  /* glibc rewrites the pointers of a writable dynamic section to
   * addresses; other loaders leave them offsets from the load address. */
  if (rela < info->dlpi_addr) rela += info->dlpi_addr;
  /* Only from a segment mapped read-only: a written page would lose what
   * was written. */
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && rela >= start && rela + size_bytes <= start + ph->p_filesz &&
        !(ph->p_flags & PF_W)) {
      r->start = rela;
      r->end = rela + size_bytes;
    }
  }
  return 1;
}

__attribute__((constructor)) static void pmcp_release_relocs(void) {
  struct relocs r = {.target = (uintptr_t)&pmcp_release_relocs};
  if (dl_iterate_phdr(find_relocs, &r) == 0 || r.end <= r.start) return;
  release_pages(r.start, r.end);
}

/* The read-only segments (text, read-only data) of the object containing
 * the address data; dl_iterate_phdr's callback, which hands back every
 * whole page of them. */
static int release_readonly(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  if (!contains(info, (uintptr_t)data)) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    /* Never a writable segment: its written pages are the only copy. */
    if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W)) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    release_pages(start, start + ph->p_filesz);
  }
  return 1;
}

/*
 * Gives back the pages of the library's code and read-only data: what was
 * touched once and is not used again leaves the host's resident memory,
 * and what is used again is mapped again from the file, once. The Go
 * runtime's initialization alone touches 8.7 MiB of them (it walks its
 * function table to check it, the packages' init functions run), and
 * registration and the first calls more (sonic compiles a codec for each
 * type on first use). So this runs twice: as the process first serves,
 * once registration is over, which lowers the peak (Node serving an echo
 * tool over stdio: 68.5-70 -> 66.3-66.8 MiB), and a second later, once the
 * first calls are over, which lowers what it keeps (the library's share
 * while serving: 10.4 -> 6.4 MiB). The segments are never written (the
 * library has no text relocations; what relocation writes is in its
 * writable segment), so this only unmaps pages.
 */
void pmcp_release_readonly(void) {
  dl_iterate_phdr(release_readonly, (void *)(uintptr_t)&pmcp_release_readonly);
}
