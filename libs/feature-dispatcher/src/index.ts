import { type DynamicModule, Module } from '@nestjs/common';

@Module({})
export class DispatcherModule {
  static forRoot(): DynamicModule {
    return { module: DispatcherModule };
  }
}
