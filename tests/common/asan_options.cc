// AddressSanitizer's defaults for the test programs (compiled into each one
// that links the test kit; ASAN_OPTIONS in the environment still wins):
// a failed allocation is the library's to report (UCC_ERR_NO_MEMORY), so the
// sanitizer returns it as a failure instead of ending the process. Programs
// whose simulated ranks crash on purpose (tests/faults) lose those ranks'
// memory as a killed process does, and run without the leak checker.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char *__asan_default_options() {
#if defined(UCC_TEST_NO_LEAK_CHECK)
    return "allocator_may_return_null=1:detect_leaks=0";
#else
    return "allocator_may_return_null=1";
#endif
}
#endif
