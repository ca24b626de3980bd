/* SPDX-License-Identifier: MIT */
/*
 * Start-up code for the test images on QEMU's mps2-an385 board: the vector
 * table at address 0 (the initial stack pointer, then the reset handler),
 * a reset handler that zeroes .bss, opens the semihosting console and
 * calls main, a fault handler that ends the program with a failure, and
 * the heap newlib's malloc grows into (baremetal/mps2-an385.ld).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern char __bss_start__[], __bss_end__[], __stack_top[], __heap_start[], __heap_end[];
extern void initialise_monitor_handles(void); /* librdimon: semihosting */
int main(void);

void onyx_reset(void) {
  memset(__bss_start__, 0, (size_t)(__bss_end__ - __bss_start__));
  initialise_monitor_handles();
  exit(main());
}

/* A fault (a bad access, an undefined instruction) ends the run with a
 * failing status instead of locking up until the timeout. */
static void onyx_fault(void) { _Exit(70); }

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top, /* initial stack pointer */
    onyx_reset,                             /* reset */
    onyx_fault,                             /* NMI */
    onyx_fault,                             /* hard fault */
    onyx_fault,                             /* memory management */
    onyx_fault,                             /* bus fault */
    onyx_fault,                             /* usage fault */
};

/* newlib's malloc takes memory from here, up to the end of the PSRAM. */
void *_sbrk(ptrdiff_t incr) {
  static char *brk = __heap_start;
  if (incr > __heap_end - brk || incr < __heap_start - brk) {
    errno = ENOMEM;
    return (void *)-1;
  }
  char *old = brk;
  brk += incr;
  return old;
}
