// uri-template-lite ships no types; this is the part Keel uses.
declare module 'uri-template-lite' {
  class UriTemplate {
    constructor(template: string);
    match(uri: string): { [name: string]: string | string[] } | null;
    expand(data: object): string;
  }
  export default UriTemplate;
}
