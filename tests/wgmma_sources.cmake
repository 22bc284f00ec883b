# The translation units that compile wgmma code, found from the sources themselves so that a new
# Hopper kernel's file is covered by the ptxas gate (tests/check_ptxas_advisories.cmake) without
# a list to edit: every kernels/, src/ and tests/ *.cu whose include closure (quoted includes,
# resolved against the including file's folder, core/include/, kernels/ and src/) holds a file
# that calls a wgmma wrapper (`wgmma_...(` or `wgmma_...<`) or writes the instruction (`wgmma.mma_async`).
# The wrapper header kernels/common/sm90.cuh itself does not count: including it for TMA or
# mbarriers alone compiles no wgmma.
#
# include()d by tests/CMakeLists.txt at configure time (gemmbench_wgmma_sources). Run as a script
# it checks that the configured list is still what the sources give (a file edited since the last
# configure may have gained or lost wgmma code):
#   cmake -DROOT=<source dir> -DEXPECTED=<tu,tu,...> -P tests/wgmma_sources.cmake

cmake_policy(VERSION 3.24)  # IN_LIST in script mode too (include() scopes it)

function(gemmbench_wgmma_sources root out)
  file(GLOB_RECURSE tus RELATIVE ${root} ${root}/kernels/*.cu ${root}/src/*.cu ${root}/tests/*.cu)
  list(SORT tus)
  set(found)
  foreach(tu IN LISTS tus)
    set(queue ${root}/${tu})
    set(seen)
    set(hit FALSE)
    while(queue)
      list(POP_FRONT queue f)
      if(f IN_LIST seen)
        continue()
      endif()
      list(APPEND seen ${f})
      if(NOT f STREQUAL "${root}/kernels/common/sm90.cuh")
        file(STRINGS ${f} calls REGEX "wgmma_[A-Za-z0-9_]*[ \t]*[<(]|wgmma\\.mma_async")
        if(calls)
          set(hit TRUE)
          break()
        endif()
      endif()
      file(STRINGS ${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
      get_filename_component(dir ${f} DIRECTORY)
      foreach(line IN LISTS includes)
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
        foreach(base ${dir} ${root}/core/include ${root}/kernels ${root}/src)
          if(EXISTS ${base}/${inc})
            get_filename_component(path ${base}/${inc} ABSOLUTE)
            list(APPEND queue ${path})
            break()
          endif()
        endforeach()
      endforeach()
    endwhile()
    if(hit)
      list(APPEND found ${tu})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT DEFINED ROOT OR NOT DEFINED EXPECTED)
    message(FATAL_ERROR "wgmma_sources.cmake: set ROOT and EXPECTED")
  endif()
  gemmbench_wgmma_sources(${ROOT} now)
  string(REPLACE "," ";" expected "${EXPECTED}")
  if(NOT now)
    message(FATAL_ERROR "found no translation unit with wgmma code: the scan is broken")
  endif()
  if(NOT now STREQUAL expected)
    string(REPLACE ";" " " now "${now}")
    string(REPLACE ";" " " expected "${expected}")
    message(FATAL_ERROR "the wgmma translation units changed since the last configure "
                        "(${expected} -> ${now}): re-run cmake so that each has its ptxas test")
  endif()
  string(REPLACE ";" " " now "${now}")
  message(STATUS "wgmma translation units, each with its ptxas test: ${now}")
endif()
