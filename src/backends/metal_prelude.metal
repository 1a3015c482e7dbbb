/* metal_prelude.metal - placeholder */
