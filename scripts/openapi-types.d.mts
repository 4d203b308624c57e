export declare const OPENAPI_TYPES_FILE: string;
export declare function openapiTypesOf(document: unknown): Promise<string>;
