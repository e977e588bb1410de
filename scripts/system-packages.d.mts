// Types for scripts/system-packages.mjs (plain JavaScript so that npm's postinstall can run it before any build).
export declare const SYSTEM_PYTHON: string;
export interface SystemPackage {
  pkg: string;
  why: string;
  present: () => boolean;
}
export declare const SYSTEM_PACKAGES: SystemPackage[];
export declare function cpythonTestSuite(): { python: string; stdlib: string } | null;
export declare function hasSystemPackage(pkg: string): boolean;
export declare function missingSystemPackages(): SystemPackage[];
export declare function installCommand(pkgs: string[], root?: boolean): string;
export declare const SKIP_ENV: string;
