/*
 * The platform layer on POSIX systems (Linux, and other Unixes where the
 * calls exist). See os.h.
 */
#include "os/os.h"

#if defined(__linux__)
#include <sys/auxv.h>
#endif

void onyx__os_hwcap(unsigned long *hwcap, unsigned long *hwcap2) {
#if defined(__linux__) && defined(AT_HWCAP)
  /* getauxval returns 0 for a missing entry, which reads as "no feature". */
  *hwcap = getauxval(AT_HWCAP);
#ifdef AT_HWCAP2
  *hwcap2 = getauxval(AT_HWCAP2);
#else
  *hwcap2 = 0;
#endif
#else
  *hwcap = 0;
  *hwcap2 = 0;
#endif
}
