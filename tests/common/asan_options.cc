// AddressSanitizer's defaults for the test programs (compiled into each one
// that links the test kit; ASAN_OPTIONS in the environment still wins):
// a failed allocation is the library's to report (UCC_ERR_NO_MEMORY), so the
// sanitizer returns it as a failure instead of ending the process. Programs
// whose simulated ranks crash on purpose (tests/faults) lose those ranks'
// memory as a killed process does, and run without the leak checker.
// Programs that draw buffers of any size (the property tests: sizes up to
// 2^63 bytes, NO_MEMORY being an answer for them) cap one allocation at
// UCC_TEST_ASAN_MAX_ALLOC_MB: the sanitizer writes the shadow of every byte
// it hands out (an eighth of its size), so a multi-GiB scratch that the
// overcommitting kernel would grant at once costs seconds, and how many a
// run draws depends on its seed (one commit's seed drew enough for 350 s).
#if defined(__SANITIZE_ADDRESS__)
#define UCC_ASAN_STR2(x) #x
#define UCC_ASAN_STR(x) UCC_ASAN_STR2(x)
extern "C" const char *__asan_default_options() {
    return "allocator_may_return_null=1"
#if defined(UCC_TEST_NO_LEAK_CHECK)
           ":detect_leaks=0"
#endif
#if defined(UCC_TEST_ASAN_MAX_ALLOC_MB)
           ":max_allocation_size_mb=" UCC_ASAN_STR(UCC_TEST_ASAN_MAX_ALLOC_MB)
#endif
               ;
}
#endif
