/* SPDX-License-Identifier: MIT */
/*
 * The Windows platform layer (src/os/win32*.c), without cmocka, which
 * mingw-w64 lacks: open_inside's refusals and separators, UTF-8 paths,
 * pread, mapping at an offset, file identity, and threads with a lock,
 * a condition variable and once, and a model's folder taken from a path
 * with '\' separators. Runs under wine64 (scripts/cross.sh windows). Prints "N passed, N failed"
 * and exits non-zero on a failure.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdio.h>
#include <string.h>

#include "onyx.h"
#include "os/os.h"

static int passed, failed;

static void check(int ok, const char *what, long got) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s (got %ld)\n", what, got);
  }
}

/* The folder the file tests work in: %TEMP%\onyx_win32_<pid>_<n>, as UTF-8. */
static char root[MAX_PATH * 3];
static wchar_t wroot[MAX_PATH];

static void make_file(const wchar_t *rel, const char *text) {
  wchar_t p[MAX_PATH * 2];
  swprintf(p, MAX_PATH * 2, L"%ls\\%ls", wroot, rel);
  HANDLE h = CreateFileW(p, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD w = 0;
  if (h != INVALID_HANDLE_VALUE) WriteFile(h, text, (DWORD)strlen(text), &w, NULL);
  if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
}

static void make_dir(const wchar_t *rel) {
  wchar_t p[MAX_PATH * 2];
  swprintf(p, MAX_PATH * 2, L"%ls\\%ls", wroot, rel);
  CreateDirectoryW(p, NULL);
}

/* open_inside(root, rel) gives want (0: opened, and the file reads text). */
static void inside(const char *rel, int want, const char *text) {
  onyx__os_file f;
  bool in_dir;
  size_t at, len;
  int e = onyx__os_file_open_inside(root, rel, &f, &in_dir, &at, &len);
  char what[256];
  snprintf(what, sizeof what, "open_inside '%s' gives %d", rel, want);
  check(e == want && !in_dir, what, e);
  if (e != 0) {
    check(!onyx__os_file_is_open(f), "a refusal leaves no file", 0);
    return;
  }
  char buf[64] = {0};
  size_t got = 0;
  e = onyx__os_file_pread(f, buf, sizeof buf - 1, 0, &got);
  snprintf(what, sizeof what, "'%s' reads '%s'", rel, text);
  check(e == 0 && got == strlen(text) && memcmp(buf, text, got) == 0, what, (long)got);
  (void)onyx__os_file_close(f);
}

/* rel names nothing (Windows says file or path not found, by version). */
static void inside_absent(const char *rel) {
  onyx__os_file f;
  bool in_dir;
  size_t at, len;
  int e = onyx__os_file_open_inside(root, rel, &f, &in_dir, &at, &len);
  char what[256];
  snprintf(what, sizeof what, "open_inside '%s' finds nothing", rel);
  check(e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND, what, e);
  if (e == 0) (void)onyx__os_file_close(f);
}

/* open_inside from the root of root's drive ("C:\"), whose name keeps its
 * separator: "\\?\C:" without it would be the volume, not its root folder. */
static void inside_from_drive_root(void) {
  char rel[sizeof root + 16];
  if (!(root[1] == ':' && root[2] == '\\')) return;
  snprintf(rel, sizeof rel, "%s\\f.bin", root + 3);
  onyx__os_file f;
  bool in_dir;
  size_t at, len;
  char drive[4] = {root[0], ':', '\\', '\0'};
  int e = onyx__os_file_open_inside(drive, rel, &f, &in_dir, &at, &len);
  check(e == 0 && !in_dir, "open_inside from a drive's root folder", e);
  if (e == 0) (void)onyx__os_file_close(f);
}

static void test_open_inside(void) {
  inside_from_drive_root();
  inside("", ONYX__OS_E_EMPTY, NULL);
  inside("..", ONYX__OS_E_DOTDOT, NULL);
  inside("sub\\..\\..\\x", ONYX__OS_E_DOTDOT, NULL);
  inside("sub/../f.bin", ONYX__OS_E_DOTDOT, NULL);
  inside("C:\\x", ONYX__OS_E_ABSOLUTE, NULL);
  inside("c:x", ONYX__OS_E_ABSOLUTE, NULL);
  inside("\\\\srv\\share\\x", ONYX__OS_E_ABSOLUTE, NULL);
  inside("//srv/share/x", ONYX__OS_E_ABSOLUTE, NULL);
  inside("/x", ONYX__OS_E_ABSOLUTE, NULL);
  inside("\\x", ONYX__OS_E_ABSOLUTE, NULL);
  inside("f.bin:stream", ERROR_INVALID_NAME, NULL); /* an alternate data stream */
  inside("f.bin\\x", ONYX__OS_E_NOT_FOLDER, NULL);
  inside("missing.bin", ERROR_FILE_NOT_FOUND, NULL);
  inside("bad\xff.bin", ERROR_NO_UNICODE_TRANSLATION, NULL);
  inside("f.bin", 0, "top");
  inside("sub\\g.bin", 0, "below");
  inside("sub/g.bin", 0, "below");
  inside(".\\sub\\\\g.bin", 0, "below");
  inside(
      "donn\xc3\xa9"
      "es/h.bin",
      0, "utf8"); /* "données" */
  /* Windows' own path rules would read these as "sub\g.bin" or a device;
   * through \\?\ they are names, which do not exist here. */
  inside_absent("sub.\\g.bin");
  inside_absent("NUL");
}

/* A symbolic link and a junction below the folder are refused. Making a
 * link needs a privilege (or developer mode) on Windows; where it cannot
 * be made the check says SKIP and why. */
static void test_links(void) {
  wchar_t link[MAX_PATH * 2], target[MAX_PATH * 2];
  swprintf(link, MAX_PATH * 2, L"%ls\\link", wroot);
  swprintf(target, MAX_PATH * 2, L"%ls\\sub", wroot);
  DWORD flags = SYMBOLIC_LINK_FLAG_DIRECTORY | 0x2; /* ALLOW_UNPRIVILEGED_CREATE */
  if (!CreateSymbolicLinkW(link, target, flags)) {
    printf("SKIP symbolic link refusal: CreateSymbolicLinkW failed (error %lu)\n",
           (unsigned long)GetLastError());
    return;
  }
  DWORD a = GetFileAttributesW(link);
  if (a == INVALID_FILE_ATTRIBUTES || !(a & FILE_ATTRIBUTE_REPARSE_POINT)) {
    printf("SKIP symbolic link refusal: the link made is no reparse point here\n");
    return;
  }
  inside("link\\g.bin", ONYX__OS_E_LINK, NULL);
  inside("link", ONYX__OS_E_LINK, NULL);
}

static void test_file_calls(void) {
  onyx__os_file f;
  char path[sizeof root + 16];
  snprintf(path, sizeof path, "%s/big.bin", root);
  int e = onyx__os_file_create(path, &f);
  check(e == 0, "create", e);
  if (e != 0) return;
  static unsigned char data[200000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7 + i / 251);
  check(onyx__os_file_write_all(f, data, sizeof data) == 0, "write_all", 0);
  check(onyx__os_file_close(f) == 0, "close after write", 0);
  e = onyx__os_file_open(path, &f);
  check(e == 0, "open", e);
  if (e != 0) return;
  onyx__os_file_info info;
  e = onyx__os_file_info_get(f, &info);
  check(e == 0 && info.kind == ONYX__OS_REGULAR && info.size == sizeof data && info.links == 1,
        "info: a regular file of the size written, one link", (long)info.size);
  check(info.mtime_s > 1600000000, "mtime in POSIX seconds", (long)info.mtime_s);
  /* A mapping at an offset that is no multiple of 64 KiB, outliving f. */
  onyx__os_map map;
  const void *p = NULL;
  e = onyx__os_file_map(f, 70001, 1000, &map, &p);
  check(e == 0, "map at an offset", e);
  size_t got = 0;
  unsigned char buf[16];
  check(onyx__os_file_pread(f, buf, sizeof buf, sizeof data - 8, &got) == 0 && got == 8 &&
            memcmp(buf, data + sizeof data - 8, 8) == 0,
        "pread across the end", (long)got);
  (void)onyx__os_file_close(f);
  if (e == 0) {
    check(memcmp(p, data + 70001, 1000) == 0, "mapped bytes", 0);
    onyx__os_unmap(map);
  }
  e = onyx__os_file_open(root, &f);
  check(e == 0 && onyx__os_file_info_get(f, &info) == 0 && info.kind == ONYX__OS_FOLDER,
        "a folder opens and says it is one", e);
  if (e == 0) (void)onyx__os_file_close(f);
  e = onyx__os_file_open("no such file \xff", &f);
  check(e == ERROR_NO_UNICODE_TRANSLATION, "invalid UTF-8 is refused", e);
  check(strcmp(onyx__os_error_text(ERROR_FILE_NOT_FOUND), "no such file or folder") == 0,
        "error text", 0);
}

/* Threads count to a total under the lock; the last one signals. */
typedef struct counter {
  onyx__os_mutex lock;
  onyx__os_cond done;
  int count, finished;
} counter;

static void *count_main(void *arg) {
  counter *c = arg;
  for (int i = 0; i < 10000; i++) {
    onyx__os_mutex_lock(&c->lock);
    c->count++;
    onyx__os_mutex_unlock(&c->lock);
  }
  onyx__os_mutex_lock(&c->lock);
  c->finished++;
  onyx__os_cond_broadcast(&c->done);
  onyx__os_mutex_unlock(&c->lock);
  return NULL;
}

static int once_runs;
static void once_fn(void) { once_runs++; }

static void test_threads(void) {
  counter c = {0};
  onyx__os_mutex_init(&c.lock);
  onyx__os_cond_init(&c.done);
  onyx__os_thread t[4];
  int started = 0;
  for (int i = 0; i < 4; i++) started += onyx__os_thread_start(&t[i], count_main, &c);
  check(started == 4, "four threads start", started);
  onyx__os_mutex_lock(&c.lock);
  while (c.finished < started) onyx__os_cond_wait(&c.done, &c.lock);
  onyx__os_mutex_unlock(&c.lock);
  for (int i = 0; i < started; i++) onyx__os_thread_join(t[i]);
  check(c.count == 40000, "the count under the lock", c.count);
  check(onyx__os_mutex_trylock(&c.lock), "trylock of a free lock", 0);
  check(!onyx__os_mutex_trylock(&c.lock), "trylock of a held lock", 0);
  onyx__os_mutex_unlock(&c.lock);
  onyx__os_cond_destroy(&c.done);
  onyx__os_mutex_destroy(&c.lock);
  static onyx__os_once once = ONYX__OS_ONCE_INIT;
  onyx__os_once_run(&once, once_fn);
  onyx__os_once_run(&once, once_fn);
  check(once_runs == 1, "once runs once", once_runs);
  unsigned n = onyx__os_cpu_count();
  check(n >= 1 && n <= 1024, "cpu count", (long)n);
  uint64_t a = onyx__os_clock_ns();
  Sleep(2);
  uint64_t b = onyx__os_clock_ns();
  check(a > 0 && b - a >= 1000000, "the clock moves on", (long)(b - a));
}

/* The model of the generated bad case external_data_length_wrong, whose
 * data.bin beside it is 2 bytes short, loaded through a path with '\'
 * separators: its external data must be looked for in the model's folder,
 * not in the current one. */
static void test_model_folder(const char *case_dir) {
  char path[1024];
  int n = snprintf(path, sizeof path, "%s/model.onnx", case_dir);
  if (n < 0 || (size_t)n >= sizeof path) return;
  for (char *p = path; *p; p++)
    if (*p == '/') *p = '\\';
  onyx_model *m = NULL;
  onyx_error err;
  onyx_status st = onyx_model_load_file(path, &m, &err);
  check(st == ONYX_EXTERNAL_DATA && strstr(err.message, "has 2 bytes") != NULL,
        "external data beside a model named with '\\' separators", (long)st);
  if (st != ONYX_EXTERNAL_DATA) printf("  %s: %s\n", path, err.message);
  onyx_model_free(m);
}

/* argv[1], where given: the folder of the bad case
 * external_data_length_wrong (scripts/cross.sh passes it). */
int main(int argc, char **argv) {
  wchar_t tmp[MAX_PATH];
  DWORD n = GetTempPathW(MAX_PATH, tmp);
  if (n == 0 || n > MAX_PATH - 40) return 2;
  /* A new folder: wine reuses process ids, and a failed run leaves its
   * folder behind. */
  int made = 0;
  for (unsigned i = 0; i < 1000 && !made; i++) {
    swprintf(wroot, MAX_PATH, L"%lsonyx_win32_%lu_%u", tmp, (unsigned long)GetCurrentProcessId(),
             i);
    made = CreateDirectoryW(wroot, NULL) != 0;
  }
  if (!made) {
    printf("cannot make a folder in %ls\n", tmp);
    return 2;
  }
  WideCharToMultiByte(CP_UTF8, 0, wroot, -1, root, (int)sizeof root, NULL, NULL);
  make_dir(L"sub");
  make_dir(L"donn\u00e9es");
  make_file(L"f.bin", "top");
  make_file(L"sub\\g.bin", "below");
  make_file(L"donn\u00e9es\\h.bin", "utf8");
  test_open_inside();
  test_links();
  test_file_calls();
  test_threads();
  if (argc > 1) test_model_folder(argv[1]);
  /* Leaves the folder behind only where a check failed. */
  if (failed == 0) {
    static const wchar_t *const files[] = {L"f.bin", L"sub\\g.bin", L"donn\u00e9es\\h.bin",
                                           L"big.bin"};
    static const wchar_t *const dirs[] = {L"link", L"sub", L"donn\u00e9es", L""};
    wchar_t p[MAX_PATH * 2];
    for (size_t i = 0; i < 4; i++) {
      swprintf(p, MAX_PATH * 2, L"%ls\\%ls", wroot, files[i]);
      DeleteFileW(p);
    }
    for (size_t i = 0; i < 4; i++) {
      swprintf(p, MAX_PATH * 2, L"%ls\\%ls", wroot, dirs[i]);
      RemoveDirectoryW(p);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
