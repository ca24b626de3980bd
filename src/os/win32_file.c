/* SPDX-License-Identifier: MIT */
/*
 * The file part of the platform layer on Windows. See os.h.
 *
 * Paths arrive as UTF-8 and go to the wide (UTF-16) calls, so that every
 * name works whatever the process's code page. Errors are GetLastError's
 * numbers.
 */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0601
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"

const char *onyx__os_error_text(int error) {
  /* FormatMessage allocates and speaks the user's language; the errors a
   * load can meet are spelled here, as on POSIX. */
  switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
      return "no such file or folder";
    case ERROR_ACCESS_DENIED:
      return "permission denied";
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
      return "the file is in use by another process";
    case ERROR_DIRECTORY:
    case ONYX__OS_E_NOT_FOLDER:
      return "a path component is not a folder";
    case ERROR_CANT_RESOLVE_FILENAME:
    case ONYX__OS_E_LINK:
      return "too many symbolic links, or a refused symbolic link or junction";
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_BUFFER_OVERFLOW:
      return "name too long";
    case ERROR_INVALID_NAME:
      return "not a valid file name on Windows";
    case ERROR_NO_UNICODE_TRANSLATION:
      return "the path is not valid UTF-8";
    case ERROR_TOO_MANY_OPEN_FILES:
      return "too many open files";
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_COMMITMENT_LIMIT:
      return "out of memory";
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
      return "no space left on device";
    case ERROR_WRITE_PROTECT:
      return "read-only file system";
    case ERROR_READ_FAULT:
    case ERROR_WRITE_FAULT:
    case ERROR_CRC:
      return "input/output error";
    case ERROR_FILE_INVALID:
      return "the file cannot be mapped";
    case ERROR_ARITHMETIC_OVERFLOW:
      return "value too large";
    case ERROR_INVALID_PARAMETER:
      return "invalid argument";
    case ONYX__OS_E_UNSUPPORTED:
      return "not supported on this platform";
    default:
      return "system error";
  }
}

/* UTF-8 to a new UTF-16 string with room for extra more characters;
 * NULL with *e set on invalid UTF-8 or no memory. */
static wchar_t *widen(const char *s, size_t extra, int *e) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  if (n <= 0) {
    *e = (int)GetLastError();
    return NULL;
  }
  wchar_t *w = malloc(((size_t)n + extra) * sizeof *w);
  if (w == NULL) {
    *e = ERROR_NOT_ENOUGH_MEMORY;
    return NULL;
  }
  (void)MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
  return w;
}

bool onyx__os_file_is_open(onyx__os_file f) { return f.handle != NULL; }

/* CreateFileW on a wide path; share says what others may do meanwhile. */
static int open_wide(const wchar_t *path, DWORD access, DWORD share, DWORD how, DWORD flags,
                     onyx__os_file *out) {
  HANDLE h = CreateFileW(path, access, share, NULL, how, flags, NULL);
  if (h == INVALID_HANDLE_VALUE) return (int)GetLastError();
  out->handle = h;
  return 0;
}

static int open_utf8(const char *path, DWORD access, DWORD share, DWORD how, DWORD flags,
                     onyx__os_file *out) {
  *out = ONYX__OS_FILE_NONE;
  int e = 0;
  wchar_t *w = widen(path, 0, &e);
  if (w == NULL) return e;
  e = open_wide(w, access, share, how, flags, out);
  free(w);
  return e;
}

/* Others may read, write, rename and delete a file onyx reads: the file
 * identity check (dev, ino, size, mtime) notices a change, as on POSIX. */
#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

int onyx__os_file_open(const char *path, onyx__os_file *out) {
  /* BACKUP_SEMANTICS opens folders too, so that the caller refuses them
   * as not regular files, with the same message as on POSIX. */
  return open_utf8(path, GENERIC_READ, SHARE_ALL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, out);
}

int onyx__os_file_create(const char *path, onyx__os_file *out) {
  return open_utf8(path, GENERIC_WRITE, FILE_SHARE_READ, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, out);
}

int onyx__os_file_close(onyx__os_file f) {
  if (f.handle == NULL) return 0;
  return CloseHandle(f.handle) ? 0 : (int)GetLastError();
}

int onyx__os_file_info_get(onyx__os_file f, onyx__os_file_info *info) {
  BY_HANDLE_FILE_INFORMATION bh;
  DWORD type = GetFileType(f.handle);
  if (type != FILE_TYPE_DISK) { /* a console, pipe or device: no file information */
    memset(info, 0, sizeof *info);
    info->kind = ONYX__OS_OTHER;
    return type == FILE_TYPE_UNKNOWN && GetLastError() != NO_ERROR ? (int)GetLastError() : 0;
  }
  if (!GetFileInformationByHandle(f.handle, &bh)) return (int)GetLastError();
  DWORD a = bh.dwFileAttributes;
  info->kind = (a & FILE_ATTRIBUTE_DIRECTORY)       ? ONYX__OS_FOLDER
               : (a & FILE_ATTRIBUTE_REPARSE_POINT) ? ONYX__OS_OTHER
                                                    : ONYX__OS_REGULAR;
  info->links = bh.nNumberOfLinks;
  info->dev = bh.dwVolumeSerialNumber;
  info->ino = (uint64_t)bh.nFileIndexHigh << 32 | bh.nFileIndexLow;
  info->size = (uint64_t)bh.nFileSizeHigh << 32 | bh.nFileSizeLow;
  /* FILETIME counts 100 ns ticks from 1601; POSIX seconds from 1970. */
  uint64_t t = (uint64_t)bh.ftLastWriteTime.dwHighDateTime << 32 | bh.ftLastWriteTime.dwLowDateTime;
  int64_t s = (int64_t)(t / 10000000u) - INT64_C(11644473600);
  info->mtime_s = s;
  info->mtime_ns = (int64_t)(t % 10000000u) * 100;
  return 0;
}

int onyx__os_path_info(const char *path, onyx__os_file_info *info) {
  /* No access asked: the handle only reads attributes; BACKUP_SEMANTICS
   * lets it name a folder. */
  onyx__os_file f;
  int e = open_utf8(path, 0, SHARE_ALL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, &f);
  if (e != 0) return e;
  e = onyx__os_file_info_get(f, info);
  (void)onyx__os_file_close(f);
  return e;
}

int onyx__os_file_pread(onyx__os_file f, void *buf, size_t n, uint64_t offset, size_t *got) {
  /* ReadFile with an OVERLAPPED offset reads at that offset on a
   * synchronous handle; it moves the file pointer, which nothing here
   * uses. One call reads at most 4 GiB - 1. */
  *got = 0;
  while (*got < n) {
    uint64_t at = offset + *got;
    if (at > (uint64_t)INT64_MAX) return ERROR_ARITHMETIC_OVERFLOW;
    size_t left = n - *got;
    DWORD want = left > 0x40000000u ? 0x40000000u : (DWORD)left, r = 0;
    OVERLAPPED o;
    memset(&o, 0, sizeof o);
    o.Offset = (DWORD)at;
    o.OffsetHigh = (DWORD)(at >> 32);
    if (!ReadFile(f.handle, (uint8_t *)buf + *got, want, &r, &o)) {
      DWORD e = GetLastError();
      if (e == ERROR_HANDLE_EOF) break;
      return (int)e;
    }
    if (r == 0) break;
    *got += r;
  }
  return 0;
}

int onyx__os_file_write_all(onyx__os_file f, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n > 0) {
    DWORD want = n > 0x40000000u ? 0x40000000u : (DWORD)n, w = 0;
    if (!WriteFile(f.handle, b, want, &w, NULL)) return (int)GetLastError();
    if (w == 0) return ERROR_WRITE_FAULT;
    b += w;
    n -= w;
  }
  return 0;
}

int onyx__os_file_map(onyx__os_file f, uint64_t offset, size_t n, onyx__os_map *map,
                      const void **data) {
  /* A view starts at a multiple of the allocation granularity (64 KiB). */
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  uint64_t gran = si.dwAllocationGranularity ? si.dwAllocationGranularity : 65536u;
  uint64_t start = offset - offset % gran;
  uint64_t span = offset - start + n;
  if (span > SIZE_MAX || span < n || start > (uint64_t)INT64_MAX) return ERROR_ARITHMETIC_OVERFLOW;
  HANDLE m = CreateFileMappingW(f.handle, NULL, PAGE_READONLY, 0, 0, NULL);
  if (m == NULL) return (int)GetLastError();
  void *addr = MapViewOfFile(m, FILE_MAP_READ, (DWORD)(start >> 32), (DWORD)start, (SIZE_T)span);
  int e = addr == NULL ? (int)GetLastError() : 0;
  /* The view keeps the mapping, and the mapping the file, alive. */
  (void)CloseHandle(m);
  if (e != 0) return e;
  map->addr = addr;
  map->size = (size_t)span;
  *data = (const uint8_t *)addr + (offset - start);
  return 0;
}

void onyx__os_unmap(onyx__os_map map) {
  if (map.addr != NULL) (void)UnmapViewOfFile(map.addr);
}

/* ---- Opening inside a folder ------------------------------------------- */

static bool is_sep(char c) { return c == '/' || c == '\\'; }

/* Refuses relative paths that could leave their folder, with either
 * separator: \x, /x and \\server\share are absolute, and so is C:x, which
 * Windows reads relative to drive C's current folder. A ':' elsewhere names
 * an alternate data stream, not a file. */
static int check_relative(const char *rel) {
  if (rel[0] == '\0') return ONYX__OS_E_EMPTY;
  bool letter = (rel[0] >= 'A' && rel[0] <= 'Z') || (rel[0] >= 'a' && rel[0] <= 'z');
  if (is_sep(rel[0]) || (letter && rel[1] == ':')) return ONYX__OS_E_ABSOLUTE;
  for (const char *p = rel; *p;) {
    size_t n = strcspn(p, "/\\");
    if (n == 2 && p[0] == '.' && p[1] == '.') return ONYX__OS_E_DOTDOT;
    if (memchr(p, ':', n) != NULL) return ERROR_INVALID_NAME;
    p += n;
    if (*p) p++;
  }
  return 0;
}

/* The absolute form of dir for the \\?\ namespace, where Windows takes
 * each name literally: no "." or ".." folding, no trailing dots or spaces
 * dropped, no device names such as NUL, no MAX_PATH. room: characters
 * to leave free after it. */
static wchar_t *literal_dir(const char *dir, size_t room, size_t *len, int *e) {
  wchar_t *w = widen(dir, 0, e);
  if (w == NULL) return NULL;
  DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
  wchar_t *out = n == 0 ? NULL : malloc(((size_t)n + 8 + room) * sizeof *out);
  if (out == NULL) {
    *e = n == 0 ? (int)GetLastError() : ERROR_NOT_ENOUGH_MEMORY;
    free(w);
    return NULL;
  }
  wchar_t *full = out + 8; /* room for a \\?\UNC\ prefix before it */
  DWORD got = GetFullPathNameW(w, n, full, NULL);
  free(w);
  if (got == 0 || got >= n) {
    *e = got == 0 ? (int)GetLastError() : ERROR_BUFFER_OVERFLOW;
    free(out);
    return NULL;
  }
  const wchar_t *prefix = L"\\\\?\\";
  if (wcsncmp(full, L"\\\\?\\", 4) == 0 || wcsncmp(full, L"\\\\.\\", 4) == 0) {
    prefix = L"";
  } else if (wcsncmp(full, L"\\\\", 2) == 0) { /* \\server\share\x: \\?\UNC\server\share\x */
    prefix = L"\\\\?\\UNC";
    full++;
    got--;
  }
  size_t p = wcslen(prefix);
  memmove(out + p, full, ((size_t)got + 1) * sizeof *out);
  memcpy(out, prefix, p * sizeof *out);
  *len = p + got;
  /* No trailing separator, but for a drive's root: \\?\C: is the volume,
   * \\?\C:\ its root folder. */
  while (*len > 0 && out[*len - 1] == L'\\' && !(*len >= 2 && out[*len - 2] == L':'))
    out[--*len] = L'\0';
  return out;
}

/* Opens the component path names, without following a reparse point (a
 * symbolic link or a junction), and checks what it is. A folder is held
 * without FILE_SHARE_DELETE, so nothing can rename or replace it while a
 * path below it is opened. */
static int open_component(const wchar_t *path, bool last, onyx__os_file *out) {
  DWORD share = last ? SHARE_ALL : FILE_SHARE_READ | FILE_SHARE_WRITE;
  DWORD access = last ? GENERIC_READ : FILE_READ_ATTRIBUTES;
  int e = open_wide(path, access, share, OPEN_EXISTING,
                    FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, out);
  if (e != 0) return e == ERROR_DIRECTORY ? ONYX__OS_E_NOT_FOLDER : e;
  BY_HANDLE_FILE_INFORMATION bh;
  if (!GetFileInformationByHandle(out->handle, &bh))
    e = (int)GetLastError();
  else if (bh.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    e = ONYX__OS_E_LINK;
  else if (!last && !(bh.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
    e = ONYX__OS_E_NOT_FOLDER;
  if (e != 0) {
    (void)CloseHandle(out->handle);
    *out = ONYX__OS_FILE_NONE;
  }
  return e;
}

/* Opens the folder path (following links: the caller chose it). */
static int open_dir(const wchar_t *path, onyx__os_file *out) {
  int e = open_wide(path, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, OPEN_EXISTING,
                    FILE_FLAG_BACKUP_SEMANTICS, out);
  if (e != 0) return e;
  onyx__os_file_info info;
  e = onyx__os_file_info_get(*out, &info);
  if (e == 0 && info.kind != ONYX__OS_FOLDER) e = ONYX__OS_E_NOT_FOLDER;
  if (e != 0) (void)onyx__os_file_close(*out);
  return e;
}

/* The walk's state: the path so far and the handles held on it. */
typedef struct walk {
  wchar_t *path;
  size_t len;
  onyx__os_file *held;
  size_t n_held;
} walk;

/* Appends rel[i, i + n) to w's path and opens it. */
static int walk_step(walk *w, const char *rel, size_t i, size_t n, bool last) {
  if (w->path[w->len - 1] != L'\\') w->path[w->len++] = L'\\'; /* a root has its own */
  int k =
      MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, rel + i, (int)n, w->path + w->len, (int)n);
  if (k <= 0) return (int)GetLastError();
  w->len += (size_t)k;
  w->path[w->len] = L'\0';
  int e = open_component(w->path, last, &w->held[w->n_held]);
  if (e == 0) w->n_held++;
  return e;
}

/* Walks rel's components below the folder w->held[0]. */
static int walk_all(walk *w, const char *rel, size_t *at, size_t *len) {
  for (size_t i = 0;;) { /* ends at the last component */
    size_t n = strcspn(rel + i, "/\\");
    bool last = rel[i + n] == '\0';
    /* Empty and "." components name the folder we are in; a trailing
     * separator leaves the folder itself as the file, for the caller to
     * refuse as not regular. */
    if (!(n == 0 || (n == 1 && rel[i] == '.'))) {
      *at = i, *len = n;
      if (n > INT_MAX / 2) return ERROR_FILENAME_EXCED_RANGE;
      int e = walk_step(w, rel, i, n, last);
      if (e != 0) return e;
    }
    if (last) return 0;
    i += n + 1;
  }
}

int onyx__os_file_open_inside(const char *dir, const char *rel, onyx__os_file *out, bool *in_dir,
                              size_t *at, size_t *len) {
  *out = ONYX__OS_FILE_NONE;
  *in_dir = false;
  *at = *len = 0;
  int e = check_relative(rel);
  if (e != 0) return e;
  size_t r = strlen(rel), parts = r / 2 + 2; /* components are at least 1 char + a separator */
  walk w = {NULL, 0, calloc(parts, sizeof(onyx__os_file)), 0};
  w.path = w.held != NULL ? literal_dir(dir, r + 2, &w.len, &e) : NULL;
  if (w.held == NULL) e = ERROR_NOT_ENOUGH_MEMORY;
  if (w.path != NULL) e = open_dir(w.path, &w.held[0]);
  if (e != 0) {
    *in_dir = true;
  } else {
    w.n_held = 1;
    e = walk_all(&w, rel, at, len);
  }
  /* Keep the last handle (the file) and close the folders above it. */
  if (e == 0) *out = w.held[--w.n_held];
  for (size_t i = 0; i < w.n_held; i++) (void)onyx__os_file_close(w.held[i]);
  free(w.held);
  free(w.path);
  return e;
}

/* ---- Shared libraries --------------------------------------------------- */

/* Copies s, cut to fit, into why[0 .. cap-1]. */
static void set_why(char *why, size_t cap, const char *s) {
  if (cap == 0) return;
  size_t n = strlen(s);
  if (n >= cap) n = cap - 1;
  memcpy(why, s, n);
  why[n] = '\0';
}

int onyx__os_library_open(const char *path, onyx__os_library **out, char *why, size_t cap) {
  *out = NULL;
  int e = 0;
  wchar_t *w = widen(path, 0, &e);
  if (w == NULL) {
    set_why(why, cap, onyx__os_error_text(e));
    return e;
  }
  /* The altered search path makes the library's own folder the first place
   * its dependencies are looked for, as dlopen does with a path. */
  HMODULE h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
  e = h == NULL ? (int)GetLastError() : 0;
  free(w);
  if (h == NULL) {
    set_why(why, cap, onyx__os_error_text(e));
    return e != 0 ? e : ONYX__OS_E_UNSUPPORTED;
  }
  *out = (onyx__os_library *)h;
  return 0;
}

void (*onyx__os_library_symbol(onyx__os_library *lib, const char *name))(void) {
  FARPROC p = GetProcAddress((HMODULE)lib, name);
  /* FARPROC is a function pointer of another type: converting between
   * function pointer types is defined, calling through the right one. */
  return (void (*)(void))p;
}

void onyx__os_library_close(onyx__os_library *lib) {
  if (lib != NULL) (void)FreeLibrary((HMODULE)lib);
}
