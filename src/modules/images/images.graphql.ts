// GraphQL types of this domain.
export {};
