# Compiles one CUDA source for sm_90a, as the build does, and fails when ptxas reports that it
# serialized a kernel's wgmma instructions (advisories C7515 / C7520). A serialized kernel still
# computes the right result, and ptxas prints these advisories as info lines, so neither the
# build nor the GPU tests notice; on the H100 one such build of hgemm_tn_sm90_sk_defer ran at
# 0.73x cuBLAS instead of 1.05x. Run by CTest (tests/CMakeLists.txt) with
#   -DNVCC=<nvcc> -DSRC=<source> -DOUT=<object> -DINCLUDES=<-I...;-I...>
foreach(var NVCC SRC OUT INCLUDES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_ptxas_advisories.cmake: ${var} is not set")
  endif()
endforeach()
execute_process(
  COMMAND ${NVCC} -std=c++17 -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr
          --generate-code=arch=compute_90a,code=sm_90a ${INCLUDES} -c -o ${OUT} ${SRC}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (exit ${rc}) on ${SRC}:\n${out}${err}")
endif()
string(REGEX MATCHALL "[^\n]*C75(15|20)[^\n]*" hits "${out}${err}")
if(hits)
  string(REPLACE ";" "\n" hits "${hits}")
  message(FATAL_ERROR "ptxas serialized wgmma in ${SRC}:\n${hits}")
endif()
message(STATUS "${SRC}: no wgmma serialization advisories from ptxas")
