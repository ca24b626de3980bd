/* SPDX-License-Identifier: MIT */
/*
 * The onyx command's OS calls on Windows. See sys.h. Paths are UTF-8 and
 * go to the wide-character C runtime calls (_wstat64, _wmkdir, _wfopen).
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <direct.h>
#include <io.h>
#include <malloc.h>
#include <shellapi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ere.h"
#include "sys.h"

/* A new UTF-16 copy of the UTF-8 s; NULL with errno set. */
static wchar_t *widen(const char *s) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
  if (!w) {
    errno = n > 0 ? ENOMEM : EINVAL;
    return NULL;
  }
  (void)MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
  return w;
}

/* A new UTF-8 copy of the UTF-16 w, or NULL. */
static char *narrow(const wchar_t *w) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  char *s = n > 0 ? malloc((size_t)n) : NULL;
  if (s) (void)WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
  return s;
}

int cli_sys_init(int *argc, char ***argv) {
  /* Binary mode: "\n" stays "\n" in files and pipes, as on Linux. */
  (void)_setmode(_fileno(stdout), _O_BINARY);
  (void)_setmode(_fileno(stderr), _O_BINARY);
  int n = 0;
  wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
  if (!w) return ENOMEM;
  /* The strings live as long as the process, like argv's. */
  char **v = calloc((size_t)n + 1, sizeof *v);
  for (int i = 0; v && i < n; i++) {
    v[i] = narrow(w[i]);
    if (!v[i]) v = NULL; /* the process exits at once: nothing to free */
  }
  LocalFree(w);
  if (!v) return ENOMEM;
  *argc = n;
  *argv = v;
  return 0;
}

int cli_sys_is_sep(char c) { return c == '/' || c == '\\'; }

size_t cli_sys_root_len(const char *path) {
  size_t n = 0;
  if (cli_sys_is_sep(path[0]) && cli_sys_is_sep(path[1])) { /* \\server\share\ */
    n = 2;
    for (int part = 0; part < 2 && path[n]; part++) {
      while (path[n] && !cli_sys_is_sep(path[n])) n++;
      if (path[n]) n++;
    }
    return n;
  }
  if (path[0] && path[1] == ':') n = 2;
  return cli_sys_is_sep(path[n]) ? n + 1 : n;
}

/* CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any extension. */
static int is_device_name(const char *name) {
  static const char *const devices[] = {"CON", "PRN", "AUX", "NUL", "COM", "LPT"};
  size_t n = strcspn(name, ".");
  while (n > 0 && name[n - 1] == ' ') n--;
  for (size_t d = 0; d < sizeof devices / sizeof *devices; d++) {
    if (_strnicmp(name, devices[d], 3) != 0) continue;
    int numbered = d >= 4;
    if (n == 3 + (size_t)numbered && (!numbered || (name[3] >= '1' && name[3] <= '9'))) return 1;
  }
  return 0;
}

int cli_sys_file_name_ok(const char *name) {
  size_t len = strlen(name);
  if (len == 0 || strpbrk(name, "/\\:*?\"<>|") != NULL || is_device_name(name)) return 0;
  return name[len - 1] != '.' && name[len - 1] != ' ';
}

static void from_stat(const struct _stat64 *sb, cli_stat *st) {
  st->kind = (sb->st_mode & _S_IFMT) == _S_IFREG   ? CLI_KIND_FILE
             : (sb->st_mode & _S_IFMT) == _S_IFDIR ? CLI_KIND_FOLDER
                                                   : CLI_KIND_OTHER;
  st->dev = (uint64_t)sb->st_dev;
  st->ino = 0;
  st->size = sb->st_size < 0 ? 0 : (uint64_t)sb->st_size;
}

/* The C runtime's stat leaves st_ino 0 on Windows: a folder's identity is
 * its volume serial number and file index, which need a handle. */
static int folder_identity(const wchar_t *path, cli_stat *st) {
  HANDLE h = CreateFileW(path, FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                         OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (h == INVALID_HANDLE_VALUE) return EACCES;
  BY_HANDLE_FILE_INFORMATION bh;
  int ok = GetFileInformationByHandle(h, &bh) != 0;
  CloseHandle(h);
  if (!ok) return EACCES;
  st->dev = bh.dwVolumeSerialNumber;
  st->ino = (uint64_t)bh.nFileIndexHigh << 32 | bh.nFileIndexLow;
  return 0;
}

int cli_sys_stat(const char *path, cli_stat *st) {
  wchar_t *w = widen(path);
  if (!w) return errno;
  /* The C runtime's stat fails on "dir\": drop trailing separators below
   * the root. */
  size_t len = wcslen(w), root = cli_sys_root_len(path);
  while (len > root && len > 1 && (w[len - 1] == L'/' || w[len - 1] == L'\\')) w[--len] = L'\0';
  struct _stat64 sb;
  int e = _wstat64(w, &sb) == 0 ? 0 : errno;
  if (e == 0) from_stat(&sb, st);
  if (e == 0 && st->kind == CLI_KIND_FOLDER) e = folder_identity(w, st);
  free(w);
  return e;
}

int cli_sys_mkdir(const char *path) {
  wchar_t *w = widen(path);
  if (!w) return errno;
  int e = _wmkdir(w) == 0 ? 0 : errno;
  free(w);
  return e;
}

int cli_sys_list_dir(const char *dir, int (*each)(void *ctx, const char *name), void *ctx) {
  char *pattern = malloc(strlen(dir) + 3);
  if (!pattern) return ENOMEM;
  strcpy(pattern, dir);
  strcat(pattern, "\\*");
  wchar_t *w = widen(pattern);
  free(pattern);
  if (!w) return errno;
  WIN32_FIND_DATAW fd;
  HANDLE h = FindFirstFileW(w, &fd);
  free(w);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD le = GetLastError();
    return le == ERROR_FILE_NOT_FOUND   ? 0
           : le == ERROR_PATH_NOT_FOUND ? ENOENT
           : le == ERROR_DIRECTORY      ? ENOTDIR
                                        : EACCES;
  }
  int e = 0;
  do {
    if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0) continue;
    char *name = narrow(fd.cFileName);
    int go_on = name ? each(ctx, name) : 0;
    free(name);
    if (!name) e = ENOMEM;
    if (!go_on) break;
  } while (FindNextFileW(h, &fd));
  FindClose(h);
  return e;
}

FILE *cli_sys_fopen(const char *path, const char *mode) {
  wchar_t *w = widen(path), *m = widen(mode);
  FILE *f = w && m ? _wfopen(w, m) : NULL;
  free(w);
  free(m);
  return f;
}

FILE *cli_sys_open_regular(const char *path, cli_stat *st, int *e) {
  /* Devices (NUL, CON) are not regular files: the stat refuses them
   * before anything opens them. */
  *e = cli_sys_stat(path, st);
  if (*e != 0 || st->kind != CLI_KIND_FILE) return NULL;
  FILE *f = cli_sys_fopen(path, "rb");
  if (!f) *e = errno;
  return f;
}

int cli_sys_stderr_is_terminal(void) { return _isatty(_fileno(stderr)); }

int cli_sys_setenv(const char *name, const char *value) { return _putenv_s(name, value); }

void *cli_sys_aligned_alloc(size_t align, size_t size) { return _aligned_malloc(size, align); }

void cli_sys_aligned_free(void *p) { _aligned_free(p); }

uint64_t cli_sys_clock_ns(void) {
  /* The frequency is split off so that counter * 1e9 cannot overflow. */
  LARGE_INTEGER f, c;
  if (!QueryPerformanceFrequency(&f) || f.QuadPart <= 0 || !QueryPerformanceCounter(&c)) return 0;
  uint64_t freq = (uint64_t)f.QuadPart, count = (uint64_t)c.QuadPart;
  return count / freq * 1000000000u + count % freq * 1000000000u / freq;
}

struct cli_thread {
  HANDLE handle;
  void *(*fn)(void *arg);
  void *arg;
};

static DWORD WINAPI thread_main(LPVOID p) {
  cli_thread *t = p;
  (void)t->fn(t->arg);
  return 0;
}

cli_thread *cli_sys_thread_start(void *(*fn)(void *arg), void *arg) {
  cli_thread *t = malloc(sizeof *t);
  if (!t) return NULL;
  t->fn = fn;
  t->arg = arg;
  t->handle = CreateThread(NULL, 0, thread_main, t, 0, NULL);
  if (!t->handle) {
    free(t);
    return NULL;
  }
  return t;
}

void cli_sys_thread_join(cli_thread *t) {
  if (!t) return;
  (void)WaitForSingleObject(t->handle, INFINITE);
  CloseHandle(t->handle);
  free(t);
}

struct cli_lock {
  SRWLOCK lock;
  CONDITION_VARIABLE cond;
};

cli_lock *cli_sys_lock_new(void) {
  cli_lock *l = malloc(sizeof *l);
  if (!l) return NULL;
  InitializeSRWLock(&l->lock);
  InitializeConditionVariable(&l->cond);
  return l;
}

void cli_sys_lock_free(cli_lock *l) { free(l); } /* SRW locks need no cleanup */
void cli_sys_lock(cli_lock *l) { AcquireSRWLockExclusive(&l->lock); }
void cli_sys_unlock(cli_lock *l) { ReleaseSRWLockExclusive(&l->lock); }
void cli_sys_wait(cli_lock *l) { (void)SleepConditionVariableSRW(&l->cond, &l->lock, INFINITE, 0); }
void cli_sys_broadcast(cli_lock *l) { WakeAllConditionVariable(&l->cond); }

/* The C runtime of Windows has no regcomp: cli/ere.c stands in. */
struct cli_regex {
  cli_ere *ere;
};

int cli_regex_compile(cli_regex **re, const char *expr, char *why, size_t why_size) {
  *re = malloc(sizeof **re);
  if (!*re) {
    snprintf(why, why_size, "out of memory");
    return 1;
  }
  int e = cli_ere_compile(&(*re)->ere, expr, why, why_size);
  if (e != 0) {
    free(*re);
    *re = NULL;
  }
  return e;
}

int cli_regex_matches(const cli_regex *re, const char *text) {
  return cli_ere_matches(re->ere, text);
}

void cli_regex_free(cli_regex *re) {
  if (!re) return;
  cli_ere_free(re->ere);
  free(re);
}
