# Compiles one CUDA source for sm_90a, as the build does, and fails when ptxas reports that it
# serialized a kernel's wgmma instructions: any "wgmma.mma_async instructions are serialized"
# advisory, whatever its code and reason (nvcc 13.0's ptxas has ten: C7515 extern calls, C7520
# registers, C7514 accumulators read between a wgmma and its wait, ...; matching C7515 / C7520
# alone let the others through). A serialized kernel still computes the right result, and ptxas
# prints these advisories as info lines, so neither the build nor the GPU tests notice; on the
# H100 one such build of hgemm_tn_sm90_sk_defer ran at 0.73x cuBLAS instead of 1.05x. Run by
# CTest (tests/CMakeLists.txt) once per translation unit
# that compiles wgmma code (tests/wgmma_sources.cmake finds them) with
#   -DNVCC=<nvcc> -DSRC=<source> -DOUT=<object> -DINCLUDES=<-I...;-I...>
foreach(var NVCC SRC OUT INCLUDES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_ptxas_advisories.cmake: ${var} is not set")
  endif()
endforeach()
get_filename_component(out_dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
execute_process(
  COMMAND ${NVCC} -std=c++17 -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr
          --generate-code=arch=compute_90a,code=sm_90a ${INCLUDES} -c -o ${OUT} ${SRC}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (exit ${rc}) on ${SRC}:\n${out}${err}")
endif()
string(REGEX MATCHALL "[^\n]*wgmma[^\n]*serialized[^\n]*" hits "${out}${err}")
if(hits)
  string(REPLACE ";" "\n" hits "${hits}")
  message(FATAL_ERROR "ptxas serialized wgmma in ${SRC}:\n${hits}")
endif()
message(STATUS "${SRC}: no wgmma serialization advisories from ptxas")
