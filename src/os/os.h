/* SPDX-License-Identifier: MIT */
/*
 * The platform layer: the calls the library makes to the operating system
 * go through this interface, with one implementation file per platform
 * (posix.c; a Windows and a freestanding one can sit beside it). The types
 * are the platform's own, named here, so that structures can hold them by
 * value, as libuv's uv_mutex_t does; only this header and the
 * implementation files name a platform header.
 *
 * Errors: the thread calls that can fail for lack of resources (starting
 * a thread) return false; the others cannot fail when used as documented
 * (a mutex is locked only by one thread, unlocked by its owner, destroyed
 * unlocked), and abort nothing: they ignore the platform's status there.
 * The file calls return an int: 0 on success, else the platform's error
 * number (errno; GetLastError on Windows), or one of the negative
 * ONYX__OS_E_* values below, which no platform number can equal.
 */
#ifndef ONYX_OS_OS_H
#define ONYX_OS_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * ONYX__OS_HAS_THREADS is 0 in a build without threads (the CMake option
 * ONYX_THREADS=OFF, for WebAssembly and microcontrollers): starting a
 * thread then always fails, the locks do nothing, and sessions run every
 * job on the calling thread (src/os/threads_none.c).
 */
#if defined(ONYX_NO_THREADS)
#define ONYX__OS_HAS_THREADS 0
typedef struct onyx__os_thread {
  char unused;
} onyx__os_thread;
typedef struct onyx__os_mutex {
  char unused;
} onyx__os_mutex;
typedef struct onyx__os_cond {
  char unused;
} onyx__os_cond;
typedef int onyx__os_once;
#define ONYX__OS_ONCE_INIT 0
#elif defined(_WIN32)
/*
 * Windows (src/os/win32.c): a thread's HANDLE, an SRWLOCK, a
 * CONDITION_VARIABLE and an INIT_ONCE. Each of these is one pointer wide
 * and starts as all zeros, so they are held here as a pointer, and this
 * header needs no <windows.h>, whose macros (min, max, near, ...) would
 * reach every file of the library; win32.c checks the sizes at compile
 * time.
 */
#define ONYX__OS_HAS_THREADS 1
typedef struct onyx__os_thread {
  void *handle;
} onyx__os_thread;
typedef struct onyx__os_mutex {
  void *srwlock;
} onyx__os_mutex;
typedef struct onyx__os_cond {
  void *condition_variable;
} onyx__os_cond;
typedef struct onyx__os_once {
  void *init_once;
} onyx__os_once;
#define ONYX__OS_ONCE_INIT \
  { 0 }
#else
#define ONYX__OS_HAS_THREADS 1
#include <pthread.h>

typedef pthread_t onyx__os_thread;
typedef pthread_mutex_t onyx__os_mutex;
typedef pthread_cond_t onyx__os_cond;
typedef pthread_once_t onyx__os_once;
#define ONYX__OS_ONCE_INIT PTHREAD_ONCE_INIT
#endif

/* Threads. fn(arg) runs on a new thread; false if none could be started. */
bool onyx__os_thread_start(onyx__os_thread *t, void *(*fn)(void *), void *arg);
/* Waits for t to return (once per started thread). */
void onyx__os_thread_join(onyx__os_thread t);
/* The calling process's id, never 0: a thread pool tells by it that it is
 * in a child forked from the process that started its threads (1 where
 * there are no processes or no fork). */
unsigned long onyx__os_process_id(void);

/* Mutexes (not recursive) and condition variables. */
void onyx__os_mutex_init(onyx__os_mutex *m);
void onyx__os_mutex_destroy(onyx__os_mutex *m);
void onyx__os_mutex_lock(onyx__os_mutex *m);
/* true if it took m; false if another thread holds it. */
bool onyx__os_mutex_trylock(onyx__os_mutex *m);
void onyx__os_mutex_unlock(onyx__os_mutex *m);
void onyx__os_cond_init(onyx__os_cond *c);
void onyx__os_cond_destroy(onyx__os_cond *c);
/* Releases m (held by the caller), sleeps until woken, retakes m. May
 * return spuriously: callers wait in a loop on their own condition. */
void onyx__os_cond_wait(onyx__os_cond *c, onyx__os_mutex *m);
void onyx__os_cond_signal(onyx__os_cond *c);
void onyx__os_cond_broadcast(onyx__os_cond *c);

/* Runs fn exactly once per once object, however many threads call; every
 * caller returns after fn has returned. */
void onyx__os_once_run(onyx__os_once *once, void (*fn)(void));

/* The number of CPUs online, from 1 to 1024 (1 where unknown). */
unsigned onyx__os_cpu_count(void);

/* A monotonic clock in nanoseconds (0 where there is none). */
uint64_t onyx__os_clock_ns(void);

/*
 * A seed for keyed hashing: different from run to run and from call to
 * call where the platform allows (clock, address-space randomisation), so
 * that input cannot be crafted against it. Not for cryptography.
 */
uint64_t onyx__os_seed(void);
/* splitmix64's finalizer, which the seeds mix their sources with. */
static inline uint64_t onyx__os_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/*
 * The kernel's hardware capability words (Linux: getauxval(AT_HWCAP) and
 * AT_HWCAP2), the way ARM Linux reports optional CPU features such as NEON
 * on 32-bit ARM. Both are 0 where the platform has no such words.
 */
void onyx__os_hwcap(unsigned long *hwcap, unsigned long *hwcap2);

/*
 * Files. Paths are bytes in the platform's convention (UTF-8 where the
 * platform's own paths are wide, as on Windows). A platform without a file
 * system implements every call as failing with ONYX__OS_E_UNSUPPORTED.
 * An onyx__os_file is a value; ONYX__OS_FILE_NONE is no file. Callers
 * treat it as opaque: on POSIX it holds a descriptor, on Windows a HANDLE
 * (and onyx__os_file_map a view from CreateFileMappingW and MapViewOfFile).
 */
#if defined(_WIN32)
typedef struct onyx__os_file {
  void *handle; /* a HANDLE; NULL for none (never INVALID_HANDLE_VALUE) */
} onyx__os_file;
#define ONYX__OS_FILE_NONE ((onyx__os_file){0})
#else
typedef struct onyx__os_file {
  int fd;
} onyx__os_file;
#define ONYX__OS_FILE_NONE ((onyx__os_file){-1})
#endif

/* Whether c separates path components: '/', and on Windows '\' too. */
static inline bool onyx__os_is_sep(char c) {
#if defined(_WIN32)
  return c == '/' || c == '\\';
#else
  return c == '/';
#endif
}

/* The length of path's root, the part a folder name keeps: 1 for "/x";
 * on Windows 2 for "C:x" and 3 for "C:\x" (a UNC path's root is within
 * its first separators, which the caller keeps anyway). */
static inline size_t onyx__os_root_len(const char *path) {
  size_t n = 0;
#if defined(_WIN32)
  if (path[0] != '\0' && path[1] == ':') n = 2;
#endif
  return onyx__os_is_sep(path[n]) ? n + 1 : n;
}

/* Failures that are onyx's own rather than the platform's. */
enum {
  ONYX__OS_E_LINK = -1,       /* a path component is a symbolic link */
  ONYX__OS_E_NOT_FOLDER = -2, /* a path component is not a folder */
  ONYX__OS_E_EMPTY = -3,      /* an empty relative path */
  ONYX__OS_E_ABSOLUTE = -4,   /* an absolute path where a relative one is needed */
  ONYX__OS_E_DOTDOT = -5,     /* a ".." component */
  ONYX__OS_E_UNSUPPORTED = -6 /* the platform has no such thing */
};

/* A short, thread-safe description of a file call's error, for messages. */
const char *onyx__os_error_text(int error);

bool onyx__os_file_is_open(onyx__os_file f);
/* Opens path for reading. Does not wait on FIFOs or devices (the caller
 * refuses what is not a regular file) and never becomes a terminal. */
int onyx__os_file_open(const char *path, onyx__os_file *out);
/* Creates or truncates path for writing. */
int onyx__os_file_create(const char *path, onyx__os_file *out);

/*
 * Opens the file at rel inside the folder dir for reading, refusing to
 * leave the folder: rel must be relative (ONYX__OS_E_ABSOLUTE), non-empty
 * (ONYX__OS_E_EMPTY) and free of ".." (ONYX__OS_E_DOTDOT), and no link is
 * followed below dir (ONYX__OS_E_LINK; dir itself may be reached through
 * links). Each component is opened from the one before, so nothing can
 * swap a component between a check and the open. Empty and "."
 * components name the current folder. On a failure to open dir itself,
 * *in_dir is true; else *at and *len locate the component in rel.
 *
 * On Windows '\' separates components too; "C:x", "\\srv\share" count as
 * absolute, a ':' elsewhere (a data stream) is ERROR_INVALID_NAME, and a
 * reparse point (a symbolic link or a junction) is ONYX__OS_E_LINK. There
 * each folder on the way is held open without delete sharing, so that
 * nothing can rename or replace it until the file is open, and names go
 * through the \\?\ namespace, where Windows takes them literally.
 */
int onyx__os_file_open_inside(const char *dir, const char *rel, onyx__os_file *out, bool *in_dir,
                              size_t *at, size_t *len);

/* Closes f (nothing for ONYX__OS_FILE_NONE). A failure means data written
 * may be lost; for files only read it can be ignored. */
int onyx__os_file_close(onyx__os_file f);

/* What the platform says about an open file. dev, ino, size and mtime
 * together identify its contents: a file replaced or written changes one. */
typedef struct onyx__os_file_info {
  enum { ONYX__OS_REGULAR, ONYX__OS_FOLDER, ONYX__OS_OTHER } kind;
  uint64_t links; /* hard links to the file */
  uint64_t dev, ino, size;
  int64_t mtime_s, mtime_ns;
} onyx__os_file_info;
int onyx__os_file_info_get(onyx__os_file f, onyx__os_file_info *info);
/* The same for the file at path, following links, without opening it for
 * reading: a FIFO or a device is looked at, never waited on. For a loader
 * that opens paths itself (onyx__os_library_open), to refuse what is not
 * a regular file first. */
int onyx__os_path_info(const char *path, onyx__os_file_info *info);

/* Reads n bytes at offset into buf, through short and interrupted reads;
 * *got is the count read, less than n only where the file ends. */
int onyx__os_file_pread(onyx__os_file f, void *buf, size_t n, uint64_t offset, size_t *got);
/* Writes all n bytes of p at the file's position. */
int onyx__os_file_write_all(onyx__os_file f, const void *p, size_t n);

/*
 * Maps n > 0 bytes at offset of f read-only and private; *data points at
 * the byte at offset, inside the mapping *map (which starts at or before
 * it, where the platform aligns mappings). The mapping outlives f.
 * With offset 0, *data is map->addr.
 */
typedef struct onyx__os_map {
  void *addr;
  size_t size;
} onyx__os_map;
int onyx__os_file_map(onyx__os_file f, uint64_t offset, size_t n, onyx__os_map *map,
                      const void **data);
void onyx__os_unmap(onyx__os_map map);

/*
 * Shared libraries, for op libraries (onyx_op_registry_load_library).
 * POSIX: dlopen, dlsym, dlclose; Windows: LoadLibraryW (the path as UTF-8
 * converted to UTF-16), GetProcAddress, FreeLibrary. A platform without
 * them fails every open.
 */
typedef struct onyx__os_library onyx__os_library;
/* Opens the library at path into *out. Returns 0, or non-zero on failure:
 * then a description (the platform's, e.g. dlerror's) is copied into
 * why[0 .. cap-1], NUL-terminated. */
int onyx__os_library_open(const char *path, onyx__os_library **out, char *why, size_t cap);
/* The address of the function called name in lib, or NULL. */
void (*onyx__os_library_symbol(onyx__os_library *lib, const char *name))(void);
/* Closes lib (NULL: nothing). */
void onyx__os_library_close(onyx__os_library *lib);

#endif
