#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cores this process may run on now.
enum SystemCPUs {
    static func online() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
