# ---- transports/cuda: the CUDA component, libucc_cuda.so (cuda_component.h).
#
# Built when the CUDA Toolkit is found (FindCUDAToolkit; Debian machines here
# have it at /usr/local/cuda) and UCC_WITH_CUDA is not OFF. It is a shared
# object of its own, in ucc/ beside libucc.so, loaded by the core with dlopen:
# libucc.so never links CUDA, so the same build runs where there is no driver,
# no GPU or no toolkit. The runtime is linked statically into the component for
# the same reason (it opens the driver itself at its first call).
#
# Kernels are compiled for sm_90 (H100, H200) and as compute_80 PTX that the
# driver compiles for any newer device; CMAKE_CUDA_ARCHITECTURES overrides.
set(UCC_CUDA_FOUND OFF)
if(NOT DEFINED UCC_WITH_CUDA OR UCC_WITH_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(UCC_CUDA_FOUND ON)
  endif()
endif()
option(UCC_WITH_CUDA "Build the CUDA component (transports/cuda, libucc_cuda.so)" ${UCC_CUDA_FOUND})
if(UCC_WITH_CUDA AND NOT UCC_CUDA_FOUND)
  message(FATAL_ERROR "UCC_WITH_CUDA=ON but no CUDA compiler was found (set CUDACXX or CMAKE_CUDA_COMPILER)")
endif()

if(UCC_WITH_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90-real 80-virtual)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # CMake 3.25 does not know that nvcc 13 takes C++20 (the project's standard).
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  file(GLOB UCC_CUDA_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/transports/cuda/*.cu)
  add_library(ucc_cuda MODULE ${UCC_CUDA_SOURCES})
  target_include_directories(ucc_cuda PRIVATE ${UCC_INCLUDES} ${PROJECT_SOURCE_DIR})
  # No contraction of a*b+c into one rounding (bitwise the host's results);
  # constexpr host functions (std::bit_cast) callable from device code.
  target_compile_options(ucc_cuda PRIVATE --expt-relaxed-constexpr -fmad=false
                         -Xcompiler=-fvisibility=hidden,-Wall,-Wextra)
  if(UCC_WERROR)
    target_compile_options(ucc_cuda PRIVATE -Werror=all-warnings -Xcompiler=-Werror)
  endif()
  target_link_libraries(ucc_cuda PRIVATE CUDA::cudart_static)
  target_link_options(ucc_cuda PRIVATE -Wl,--no-undefined -Wl,--exclude-libs,ALL)
  set_target_properties(ucc_cuda PROPERTIES PREFIX "lib" OUTPUT_NAME ucc_cuda
                        LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/ucc)
  install(TARGETS ucc_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ucc)
endif()
