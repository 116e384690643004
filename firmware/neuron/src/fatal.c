// The library's fatal errors: one line on the run's log, then a device fault (abort).
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "neuron_internal.h"

void __neuron_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  abort();
}
