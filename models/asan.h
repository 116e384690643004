// NPUSIM_ASAN is 1 in a translation unit compiled with AddressSanitizer, by GCC (which defines
// __SANITIZE_ADDRESS__) or by clang (which answers __has_feature(address_sanitizer)), else 0.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define NPUSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPUSIM_ASAN 1
#endif
#endif
#ifndef NPUSIM_ASAN
#define NPUSIM_ASAN 0
#endif
