# Fails when a pure module (core/, policy/, cron/, forecast/, vertical/recommender, vertical/updater) includes an
# I/O library, or when a room includes a room above it.

# Appends to `out` "FILE: LINES" for every file of `dir` with an include line matching `pattern`.
function(includes_matching dir pattern out)
  set(found ${${out}})
  file(GLOB_RECURSE files "${SOURCE_DIR}/${dir}/*.hpp" "${SOURCE_DIR}/${dir}/*.cpp")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*${pattern}")
    if(lines)
      list(APPEND found "${f}: ${lines}")
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(fail_on violations what)
  if(violations)
    list(JOIN violations "\n" text)
    message(FATAL_ERROR "${what}:\n${text}")
  endif()
endfunction()

set(violations "")
foreach(dir core policy cron forecast vertical/recommender vertical/updater)
  includes_matching(${dir} "[<\"](boost/asio|boost/beast|rapidjson|spdlog|fmt/)" violations)
endforeach()
fail_on("${violations}" "pure modules include I/O libraries")
message(STATUS "pure modules are free of I/O includes")

# The floors: a room includes nothing from the rooms above it (DESIGN §2). core/ is the ground;
# the decision cores stand on it side by side, sharing its Kubernetes words (core/kubernetes.hpp).
set(above_cores "kube|kinds|net|metrics|adapter|controller|sim|demo|cli")
set(forbidden_core "policy|cron|forecast|vertical|${above_cores}")
set(forbidden_policy "cron|vertical|${above_cores}")
set(forbidden_cron "policy|vertical|${above_cores}")
set(forbidden_forecast "policy|cron|vertical|${above_cores}")
set(forbidden_vertical "policy|cron|controller|sim|demo|cli")
set(violations "")
foreach(dir core policy cron forecast vertical)
  includes_matching(${dir} "\"(${forbidden_${dir}})/" violations)
endforeach()
fail_on("${violations}" "rooms include rooms above them")
message(STATUS "no room includes a room above it")
