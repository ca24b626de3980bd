/* SPDX-License-Identifier: MIT */
/*
 * The onyx command's OS calls on POSIX systems. See sys.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#if !defined(ONYX_NO_THREADS)
#include <pthread.h>
#endif

#include "sys.h"

int cli_sys_init(int *argc, char ***argv) {
  (void)argc, (void)argv; /* POSIX passes the bytes as they are */
  return 0;
}

int cli_sys_is_sep(char c) { return c == '/'; }

size_t cli_sys_root_len(const char *path) { return path[0] == '/' ? 1 : 0; }

int cli_sys_file_name_ok(const char *name) { return strchr(name, '/') == NULL; }

static void from_stat(const struct stat *sb, cli_stat *st) {
  st->kind = S_ISREG(sb->st_mode)   ? CLI_KIND_FILE
             : S_ISDIR(sb->st_mode) ? CLI_KIND_FOLDER
                                    : CLI_KIND_OTHER;
  st->dev = (uint64_t)sb->st_dev;
  st->ino = (uint64_t)sb->st_ino;
  st->size = sb->st_size < 0 ? 0 : (uint64_t)sb->st_size;
}

int cli_sys_stat(const char *path, cli_stat *st) {
  struct stat sb;
  if (stat(path, &sb) != 0) return errno;
  from_stat(&sb, st);
  return 0;
}

int cli_sys_mkdir(const char *path) { return mkdir(path, 0777) == 0 ? 0 : errno; }

int cli_sys_list_dir(const char *dir, int (*each)(void *ctx, const char *name), void *ctx) {
  DIR *d = opendir(dir);
  if (!d) return errno;
  int e = 0;
  struct dirent *ent;
  errno = 0;
  while ((ent = readdir(d)) != NULL) {
    const char *n = ent->d_name;
    if (strcmp(n, ".") != 0 && strcmp(n, "..") != 0 && !each(ctx, n)) break;
    errno = 0;
  }
  if (!ent) e = errno; /* readdir ended: at the end (0), or on an error */
  closedir(d);
  return e;
}

FILE *cli_sys_fopen(const char *path, const char *mode) { return fopen(path, mode); }

FILE *cli_sys_open_regular(const char *path, cli_stat *st, int *e) {
  /* O_NONBLOCK keeps the open from waiting on a FIFO, which is then
   * refused as not a regular file. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat sb;
  *e = fd < 0 ? errno : fstat(fd, &sb) != 0 ? errno : 0;
  if (*e == 0) from_stat(&sb, st);
  FILE *f = *e == 0 && st->kind == CLI_KIND_FILE ? fdopen(fd, "rb") : NULL;
  if (*e == 0 && st->kind == CLI_KIND_FILE && !f) *e = errno;
  if (!f && fd >= 0) close(fd);
  return f;
}

int cli_sys_stderr_is_terminal(void) { return isatty(STDERR_FILENO); }

int cli_sys_setenv(const char *name, const char *value) {
  return setenv(name, value, 1) == 0 ? 0 : errno;
}

void *cli_sys_aligned_alloc(size_t align, size_t size) {
  /* C11's aligned_alloc wants size a multiple of align. */
  size_t rounded = (size + align - 1) / align * align;
  return rounded < size ? NULL : aligned_alloc(align, rounded);
}

void cli_sys_aligned_free(void *p) { free(p); }

uint64_t cli_sys_clock_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(ONYX_NO_THREADS)
struct cli_thread {
  char unused;
};
struct cli_lock {
  char unused;
};

cli_thread *cli_sys_thread_start(void *(*fn)(void *arg), void *arg) {
  (void)fn, (void)arg;
  return NULL;
}
void cli_sys_thread_join(cli_thread *t) { (void)t; }
cli_lock *cli_sys_lock_new(void) { return malloc(sizeof(cli_lock)); }
void cli_sys_lock_free(cli_lock *l) { free(l); }
void cli_sys_lock(cli_lock *l) { (void)l; }
void cli_sys_unlock(cli_lock *l) { (void)l; }
void cli_sys_wait(cli_lock *l) { (void)l; }
void cli_sys_broadcast(cli_lock *l) { (void)l; }
#else
struct cli_thread {
  pthread_t id;
};
struct cli_lock {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
};

cli_thread *cli_sys_thread_start(void *(*fn)(void *arg), void *arg) {
  cli_thread *t = malloc(sizeof *t);
  if (t && pthread_create(&t->id, NULL, fn, arg) != 0) {
    free(t);
    t = NULL;
  }
  return t;
}

void cli_sys_thread_join(cli_thread *t) {
  if (!t) return;
  (void)pthread_join(t->id, NULL);
  free(t);
}

cli_lock *cli_sys_lock_new(void) {
  cli_lock *l = malloc(sizeof *l);
  if (!l) return NULL;
  if (pthread_mutex_init(&l->mutex, NULL) != 0) {
    free(l);
    return NULL;
  }
  if (pthread_cond_init(&l->cond, NULL) != 0) {
    pthread_mutex_destroy(&l->mutex);
    free(l);
    return NULL;
  }
  return l;
}

void cli_sys_lock_free(cli_lock *l) {
  if (!l) return;
  pthread_cond_destroy(&l->cond);
  pthread_mutex_destroy(&l->mutex);
  free(l);
}

void cli_sys_lock(cli_lock *l) { (void)pthread_mutex_lock(&l->mutex); }
void cli_sys_unlock(cli_lock *l) { (void)pthread_mutex_unlock(&l->mutex); }
void cli_sys_wait(cli_lock *l) { (void)pthread_cond_wait(&l->cond, &l->mutex); }
void cli_sys_broadcast(cli_lock *l) { (void)pthread_cond_broadcast(&l->cond); }
#endif

struct cli_regex {
  regex_t re;
};

int cli_regex_compile(cli_regex **re, const char *expr, char *why, size_t why_size) {
  *re = malloc(sizeof **re);
  if (!*re) {
    snprintf(why, why_size, "out of memory");
    return 1;
  }
  int e = regcomp(&(*re)->re, expr, REG_EXTENDED | REG_NOSUB);
  if (e != 0) {
    regerror(e, &(*re)->re, why, why_size);
    regfree(&(*re)->re);
    free(*re);
    *re = NULL;
  }
  return e;
}

int cli_regex_matches(const cli_regex *re, const char *text) {
  return regexec(&re->re, text, 0, NULL, 0) == 0;
}

void cli_regex_free(cli_regex *re) {
  if (!re) return;
  regfree(&re->re);
  free(re);
}
