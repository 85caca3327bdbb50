# copy/: every way a term moves. Each strategy group lists its files in its own .cmake.
set(TC_COPY_SOURCES)
include(${CMAKE_CURRENT_LIST_DIR}/ext.cmake OPTIONAL)
include(${CMAKE_CURRENT_LIST_DIR}/strategies.cmake OPTIONAL)
# Sends between process heaps (needs heaps/).
list(APPEND TC_COPY_SOURCES copy/send.c)
