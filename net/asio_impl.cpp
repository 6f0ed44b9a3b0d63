// kube/asio_impl.cpp — the one translation unit that compiles Asio, Asio SSL and Beast
// (separate compilation: every other file includes only their declarations).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
