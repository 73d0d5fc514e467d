# Fails when the code quoted in a document differs from the file in examples/ that ctest builds
# and runs: an operator page's call example, or docs/ops/README.md's copy of the header the
# examples share. So a page can never show code that was not compiled and checked.
#
#   cmake -DDOC=<docs/ops/page.md> -DSOURCE=<examples/file> -P check_doc_example.cmake
#
# The page holds the file verbatim in the one fenced block that follows the line
#   <!-- verbatim: examples/<file> -->
# (a fence line "```cpp" right after it, the closing fence "```" on a line of its own).

foreach(var DOC SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_doc_example.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${DOC}" doc)
file(READ "${SOURCE}" source)
get_filename_component(source_name "${SOURCE}" NAME)

set(marker "<!-- verbatim: examples/${source_name} -->\n```cpp\n")
string(FIND "${doc}" "${marker}" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "${DOC}: no block introduced by '<!-- verbatim: examples/${source_name} -->' "
                      "followed by a ```cpp fence")
endif()
string(FIND "${doc}" "${marker}" last REVERSE)
if(NOT last EQUAL begin)
  message(FATAL_ERROR "${DOC}: more than one block quotes examples/${source_name}")
endif()
string(LENGTH "${marker}" marker_length)
math(EXPR begin "${begin} + ${marker_length}")
string(SUBSTRING "${doc}" ${begin} -1 rest)
string(FIND "${rest}" "\n```\n" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${DOC}: the block quoting examples/${source_name} is not closed")
endif()
math(EXPR end "${end} + 1")  # keep the last line's newline, as the source file has it
string(SUBSTRING "${rest}" 0 ${end} block)

if(block STREQUAL source)
  message(STATUS "${DOC}: its code block equals ${SOURCE}")
  return()
endif()

# Name the first line that differs, walking both texts line by line (CMake lists would split on
# the code's semicolons and treat its square brackets specially).
set(line 1)
set(doc_rest "${block}")
set(source_rest "${source}")
set(done FALSE)
while(NOT done)
  string(FIND "${doc_rest}" "\n" doc_end)
  string(FIND "${source_rest}" "\n" source_end)
  if(doc_end EQUAL -1)
    set(doc_line "<end of block>")
  else()
    string(SUBSTRING "${doc_rest}" 0 ${doc_end} doc_line)
  endif()
  if(source_end EQUAL -1)
    set(source_line "<end of file>")
  else()
    string(SUBSTRING "${source_rest}" 0 ${source_end} source_line)
  endif()
  if(doc_end EQUAL -1 OR source_end EQUAL -1 OR NOT doc_line STREQUAL source_line)
    set(done TRUE)
  else()
    math(EXPR doc_end "${doc_end} + 1")
    math(EXPR source_end "${source_end} + 1")
    string(SUBSTRING "${doc_rest}" ${doc_end} -1 doc_rest)
    string(SUBSTRING "${source_rest}" ${source_end} -1 source_rest)
    math(EXPR line "${line} + 1")
  endif()
endwhile()
message(FATAL_ERROR "${DOC}: the code block differs from ${SOURCE} at line ${line} of the "
                    "file:\n  page:    ${doc_line}\n  file:    ${source_line}\n"
                    "Copy the file into the page again (the block must be the file, verbatim).")
