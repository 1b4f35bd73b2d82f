// Who is calling: the role a caller's token gives (the server decides it; operations may depend on it).
export type Role = 'reader' | 'admin';
