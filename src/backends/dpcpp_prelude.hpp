/* dpcpp_prelude.hpp - placeholder */
