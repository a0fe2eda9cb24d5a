# cmake -DGOPA_BUILD=… -DCONSUMER=… -DWORK=… -DGENERATOR=… -DC_COMPILER=… -DCXX_COMPILER=… [-DCONFIG=…] -P install_consumer.cmake
#
# Installs the gopa build tree GOPA_BUILD into WORK/prefix (a fresh directory), configures and
# builds the project CONSUMER against that prefix alone, and runs its program.
foreach(var GOPA_BUILD CONSUMER WORK GENERATOR C_COMPILER CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_consumer.cmake: -D${var}=… is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")
message(STATUS "cmake --install ${GOPA_BUILD} --prefix ${prefix}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${GOPA_BUILD}" --prefix "${prefix}" --config "${CONFIG}"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
foreach(installed include/gopa/pedersen.hpp include/gopa/version.hpp include/gopa/circuits/samplers.hpp)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "not installed: ${installed}")
  endif()
endforeach()
file(GLOB_RECURSE config_files "${prefix}/*/gopaConfig.cmake" "${prefix}/*/gopaConfigVersion.cmake")
list(LENGTH config_files n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "expected gopaConfig.cmake and gopaConfigVersion.cmake under ${prefix}, found: ${config_files}")
endif()

message(STATUS "configure and build ${CONSUMER} against ${prefix}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER}" -B "${WORK}/build" -G "${GENERATOR}"
                        -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_C_COMPILER=${C_COMPILER}
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
                        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/build" --config "${CONFIG}" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${WORK}/build/gopa_consumer" OUTPUT_VARIABLE out COMMAND_ERROR_IS_FATAL ANY)
message(STATUS "gopa_consumer: ${out}")
if(NOT out MATCHES "^gopa [0-9.]+: commitment [0-9a-f]+ verified")
  message(FATAL_ERROR "unexpected output of gopa_consumer: ${out}")
endif()
