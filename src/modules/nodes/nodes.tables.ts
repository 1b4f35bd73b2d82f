// Tables of this domain (none yet).
export {};
